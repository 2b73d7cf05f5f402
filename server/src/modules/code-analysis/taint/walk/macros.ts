/** Macros (Rust): a macro's tokens read as calls and names, and a macro the catalogue names as a sink. */
import type { SyntaxNode } from '../../parsing/tree';
import { NAME_LIKE } from '../syntax';
import { CLEAN, markSafe, type Taint, unionTaint, type Val } from '../values';
import { checkSinks } from './sinks';
import type { WalkState } from './state';

/**
 * A macro's tokens (Rust's `format!("…", html_escape::encode_text(&x))`): a path followed by a parenthesised
 * group is a call, and a sanitiser's group is clean.
 */
export function tokenTree(s: WalkState, node: SyntaxNode): Val {
  let taint: Taint | undefined;
  let path = '';
  let head: SyntaxNode | undefined;
  const endPath = (calls: boolean) => {
    // A name read on its own (`q.name` reads `q`); a called path is a function, not data.
    if (head && !calls) taint = unionTaint(taint, s.evaluate(head).taint);
    path = '';
    head = undefined;
  };
  let generics = 0;
  for (const child of node.children) {
    const text = s.text(child);
    // A turbofish (`x.parse::<u32>()`) belongs to the called path.
    if (generics > 0 || (text === '<' && path.endsWith('::'))) {
      path += text;
      if (text === '<') generics += 1;
      else if (text === '>') generics -= 1;
      continue;
    }
    if (NAME_LIKE.test(child.type)) {
      if (path === '' || /(\.|::)$/.test(path)) {
        if (path === '') head = child;
        path += text;
        continue;
      }
      endPath(false);
      head = child;
      path = text;
      continue;
    }
    if ((text === '.' || text === '::') && path !== '') {
      path += text;
      continue;
    }
    if (child.type === 'token_tree') {
      const called = path;
      const sanitised = called !== '' && s.lang.sanitizers.some((re) => re.test(called));
      const kinds = (s.lang.kindSanitizers ?? []).find((k) => called !== '' && k.callee.test(called))?.kinds;
      endPath(called !== '');
      if (!sanitised) {
        const inner = tokenTree(s, child).taint;
        taint = unionTaint(taint, kinds ? markSafe(inner, kinds) : inner);
      }
      continue;
    }
    endPath(false);
    if (child.named) taint = unionTaint(taint, s.evaluate(child).taint);
  }
  endPath(false);
  return taint ? { taint } : CLEAN;
}

/**
 * A macro (`info!("user {}", name)`): its tokens' taint, and a sink when the catalogue names the macro with its
 * `!` (the callee is the macro's path and `!`, its one argument the token tree).
 */
export function macroInvocation(s: WalkState, node: SyntaxNode): Val {
  const tree = node.children.find((c) => c.type === 'token_tree');
  const name = node.children[0];
  if (!tree || !name) return s.evaluateChildren(node);
  const v = s.evaluateChildren(node);
  checkSinks(s, node, `${s.text(name).replace(/\s+/g, '')}!`, undefined, [tree], [v], undefined);
  return v;
}
