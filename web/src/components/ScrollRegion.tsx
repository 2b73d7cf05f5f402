import type { ReactNode } from 'react';

/**
 * A box that scrolls sideways when its content (a table, a code sample) is wider than the screen. It is a named
 * region in the tab order, so that keyboard users can reach it and scroll it with the arrow keys (WCAG 2.1.1).
 */
export function ScrollRegion({
  label,
  className = 'table-wrap',
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be focusable to be scrolled by keyboard
    <section className={className} aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
