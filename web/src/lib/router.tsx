import { type AnchorHTMLAttributes, type MouseEvent, useMemo, useSyncExternalStore } from 'react';

/**
 * A tiny history router: the dashboard has a handful of flat pages, so a library (and its bytes) buys nothing.
 * The server answers every non-API path with index.html, so deep links and reloads work.
 */
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

export function navigate(to: string, { replace = false } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  for (const l of listeners) l();
}

export function usePathname(): string {
  return useSyncExternalStore(
    subscribe,
    () => window.location.pathname,
    () => '/',
  );
}

/** The query string, re-read on every navigation: pages keep their view (period, filters) there. */
export function useSearch(): URLSearchParams {
  const search = useSyncExternalStore(
    subscribe,
    () => window.location.search,
    () => '',
  );
  return useMemo(() => new URLSearchParams(search), [search]);
}

/** Sets or clears query parameters in place (no new history entry), so a view can be shared and reloaded. */
export function updateSearch(changes: Record<string, string | null>): void {
  const params = new URLSearchParams(window.location.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === '') params.delete(name);
    else params.set(name, value);
  }
  const qs = params.toString();
  navigate(`${window.location.pathname}${qs ? `?${qs}` : ''}`, { replace: true });
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

/** An ordinary anchor (so open-in-new-tab works) that navigates in place on a plain click. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const pathname = usePathname();
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
    window.scrollTo(0, 0);
  };
  return <a href={to} aria-current={pathname === to ? 'page' : undefined} onClick={handle} {...rest} />;
}
