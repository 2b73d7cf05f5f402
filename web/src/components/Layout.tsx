import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AccountView, Role } from '@tessera/shared';
import { PLAN_LABELS } from '@tessera/shared';
import { type ReactNode, useEffect, useRef } from 'react';
import { Link, navigate, usePathname } from '../lib/router';
import { useTRPC } from '../lib/trpc';
import { OrganisationSwitcher } from './teams/OrganisationSwitcher';

interface NavPage {
  path: string;
  label: string;
}

export function Layout({
  account,
  role,
  userEmail,
  pages,
  children,
}: {
  account: AccountView;
  role: Role;
  /** The signed-in user's email (the organisation's own may differ). */
  userEmail?: string | undefined;
  pages: readonly NavPage[];
  children: ReactNode;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pathname = usePathname();
  const mainRef = useRef<HTMLElement>(null);
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onSuccess: () => {
        queryClient.clear();
        navigate('/signin', { replace: true });
      },
    }),
  );

  // Screen readers and keyboard users land on the new page's content after a navigation.
  useEffect(() => {
    const current = pages.find((p) => p.path === pathname);
    document.title = current ? `${current.label} · Tessera` : 'Tessera';
    mainRef.current?.focus({ preventScroll: true });
  }, [pathname, pages]);

  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◆
          </span>
          Tessera
        </Link>
        <div className="account">
          {/* The organisation is named when it is not simply the user's own email. */}
          <OrganisationSwitcher
            currentId={account.id}
            fallback={
              account.name ?? (account.email !== (userEmail ?? account.email) ? account.email : undefined)
            }
          />
          <span className="account-email">{userEmail ?? account.email}</span>
          <span className="badge">{PLAN_LABELS[account.plan]}</span>
          <span className="badge" title="Your role in this organisation">
            {role}
          </span>
          <button type="button" className="btn btn-ghost" onClick={() => signOut.mutate()}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="sidenav" aria-label="Dashboard">
        <ul>
          {pages.map((p) => (
            <li key={p.path}>
              <Link to={p.path}>{p.label}</Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={mainRef} tabIndex={-1} className="content">
        {children}
      </main>
    </div>
  );
}
