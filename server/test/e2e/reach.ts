import type { Page } from 'playwright-core';

/**
 * Probes run in the page for the responsive checks: what a user at a given width cannot see or reach sideways.
 * Vertical position is never checked: pages scroll down, that is expected on any screen.
 */

/** How far the page scrolls sideways: 0 when everything fits the viewport. */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.scrollingElement.scrollWidth - window.innerWidth');
}

/** Every element that scrolls sideways must be reachable by keyboard: focusable and named as a region. */
export function unreachableScrollers(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const out = [];
    for (const el of document.querySelectorAll('main *')) {
      if (el.closest('.graphiql-container')) continue; // CodeMirror scrolls with its own focused input
      const s = getComputedStyle(el);
      if (!(s.overflowX === 'auto' || s.overflowX === 'scroll') || el.scrollWidth <= el.clientWidth) continue;
      const named = el.getAttribute('aria-label') && (el.tagName === 'SECTION' || el.getAttribute('role') === 'region');
      if (el.tabIndex !== 0 || !named) out.push(el.outerHTML.slice(0, 120));
    }
    return out;
  })()`);
}

/** What a user can operate: links, buttons, form controls, anything in the tab order. */
const CONTROLS = ['a[href]', 'button', 'input:not([type="hidden"])', 'select', 'textarea', 'summary'];
export const INTERACTIVE = [...CONTROLS, '[tabindex]:not([tabindex="-1"])'].join(', ');
/** The controls of forms and confirmations: never to be scrolled to sideways, at any width. */
export const FORM_CONTROLS = CONTROLS.flatMap((c) => [`form ${c}`, `fieldset ${c}`]).join(', ');

/**
 * Scrolls every sideways scroller back to its start, as the page first shows it: clicking a control (as the
 * tests do) scrolls its region to it, which would hide what a user arriving sees off to the right.
 */
export function resetSidewaysScroll(page: Page): Promise<void> {
  return page.evaluate<void>(`(() => {
    for (const el of document.querySelectorAll('main *')) if (el.scrollLeft) el.scrollLeft = 0;
  })()`);
}

/**
 * The elements matching `selector` that lie sideways outside the viewport, or outside the visible box of an
 * ancestor that clips or scrolls (a table scrolled to its start hides its right-hand columns). With
 * `allowScrollRegions`, one hidden only inside a focusable, named scroll region passes: the keyboard reaches that
 * region and scrolls it. Not rendered or visually hidden (1 px, as `.sr-only`, or in a box of a few pixels)
 * elements are left out, and so is the skip link, which moves on screen when focused.
 */
export function unreachable(
  page: Page,
  { selector = INTERACTIVE, allowScrollRegions }: { selector?: string; allowScrollRegions: boolean },
): Promise<string[]> {
  const args = JSON.stringify({ selector, allowScrollRegions });
  return page.evaluate<string[]>(`(() => {
    const { selector, allowScrollRegions } = ${args};
    const viewport = document.documentElement.clientWidth;
    const isRegion = (el) =>
      el.tabIndex === 0 && el.getAttribute('aria-label') && (el.tagName === 'SECTION' || el.getAttribute('role') === 'region');
    const out = [];
    for (const el of document.querySelectorAll(selector)) {
      if (el.matches('a.skip')) continue;
      const r = el.getBoundingClientRect();
      if (r.width <= 1 && r.height <= 1) continue;
      if (getComputedStyle(el).visibility === 'hidden') continue;
      const outside = (left, right) => r.left < left - 0.5 || r.right > right + 0.5;
      const clippers = [];
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX === 'visible') continue;
        const pr = p.getBoundingClientRect();
        if (outside(pr.left, pr.right)) clippers.push(p);
      }
      // Visually hidden inside a box of a few pixels (CodeMirror's input, an .sr-only wrapper): out of sight on
      // purpose, focused through its editor.
      if (clippers.some((c) => { const b = c.getBoundingClientRect(); return b.width <= 3 || b.height <= 3; })) continue;
      if (!outside(0, viewport) && clippers.length === 0) continue;
      // Scrolled out of sight only by regions that are themselves checked (they are focusable, so matched too).
      if (allowScrollRegions && clippers.length > 0 && clippers.every(isRegion)) continue;
      const name = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('name') || '').trim();
      out.push(el.tagName.toLowerCase() + ' "' + name.replace(/\\s+/g, ' ').slice(0, 50) + '" at x ' +
        Math.round(r.left) + '–' + Math.round(r.right));
    }
    return out;
  })()`);
}

/**
 * Selects too narrow to show the option chosen: narrower than its text plus the arrow, unless at least 150 px
 * (a long choice, such as an email address, may be cut short; a role or a period must show whole).
 */
export function narrowSelects(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const out = [];
    const ctx = document.createElement('canvas').getContext('2d');
    for (const el of document.querySelectorAll('main select, header select')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0) continue;
      const s = getComputedStyle(el);
      ctx.font = s.font;
      const text = el.selectedOptions[0]?.textContent ?? '';
      const needed = ctx.measureText(text).width + parseFloat(s.paddingLeft) + parseFloat(s.paddingRight) + 16;
      if (r.width < Math.min(needed, 150)) out.push((el.getAttribute('aria-label') || el.id) + ' "' + text + '" in ' + Math.round(r.width) + ' px');
    }
    return out;
  })()`);
}
