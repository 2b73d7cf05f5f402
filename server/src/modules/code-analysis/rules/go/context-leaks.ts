import type { Finding } from '@tessera/shared';
import type { ParsedSource } from '../../parsing/parse';
import type { SyntaxNode } from '../../parsing/tree';
import {
  assignmentSides,
  callParts,
  enclosingFunction,
  FUNCTION_TYPES,
  field,
  finding,
  namedChildren,
  nodesOf,
  parameters,
  textOf,
} from './syntax';

/**
 * Context propagation failures (CWE-400; go vet's lostcancel, gosec G118): a `context.WithCancel/Timeout/Deadline`
 * whose cancel function is dropped or never called (the child context and its timer live until the parent ends), a
 * goroutine started where a request or caller context exists that makes its own `context.Background()`, and an
 * endless loop doing blocking work in a function given a context that never looks at `ctx.Done()`.
 */

const WITH_CANCEL = /^context\.With(Cancel|Timeout|Deadline)(Cause)?$/;
const DETACHED = /^context\.(Background|TODO)$/;
/** Calls that block on I/O or time: an endless loop doing them needs a way out when the context ends. */
const BLOCKING_FUNCS =
  /^(time\.Sleep|http\.(Get|Head|Post|PostForm)|os\.(Open|OpenFile|ReadFile|WriteFile|Create)|net\.Dial\w*)$/;
const BLOCKING_METHODS =
  /\.(Do|Query|QueryContext|QueryRow|QueryRowContext|Exec|ExecContext|Begin|BeginTx|Read|Write|Send|Recv|RoundTrip|Accept|ReadMessage|WriteMessage)$/;
const MAX_ALIASES = 4;

const LOST_CANCEL = {
  rule_id: 'bug/context-cancel-not-called',
  category: 'bug',
  severity: 'medium',
  confidence: 'high',
  cwe: 'CWE-400',
  message:
    'The cancel function of this derived context is dropped or never called, so the context and its timer live until the parent is cancelled; `defer cancel()` right after creating it.',
} as const;
const DETACHED_GOROUTINE = {
  rule_id: 'bug/goroutine-detached-context',
  category: 'bug',
  severity: 'low',
  confidence: 'medium',
  cwe: 'CWE-400',
  message:
    'This goroutine uses context.Background()/TODO() although the function has a request or caller context, so it outlives cancellation and deadlines; derive its context from the one in scope.',
} as const;
const UNCANCELLABLE_LOOP = {
  rule_id: 'bug/loop-ignores-context',
  category: 'bug',
  severity: 'low',
  confidence: 'medium',
  cwe: 'CWE-400',
  message:
    'This endless loop does blocking work in a function given a context but never checks ctx.Done() (or ctx.Err()), so it cannot be cancelled; select on ctx.Done() or return when ctx.Err() is set.',
} as const;

const hasContextParam = (parsed: ParsedSource, fn: SyntaxNode): boolean =>
  parameters(parsed, fn).some((p) => p.type === 'context.Context');

/** A function with a context in scope: a `context.Context` parameter, or the request's `r.Context()` read. */
function hasContextInScope(parsed: ParsedSource, fn: SyntaxNode): boolean {
  const params = parameters(parsed, fn);
  if (params.some((p) => p.type === 'context.Context')) return true;
  const requests = params.filter((p) => p.type === '*http.Request').map((p) => p.name);
  const body = field(fn, 'body');
  return !!body && requests.some((r) => textOf(parsed, body).includes(`${r}.Context()`));
}

/** Identifiers named `name` under `scope`, leaving out the ones being declared or assigned to. */
function readsOf(parsed: ParsedSource, scope: SyntaxNode, name: string): SyntaxNode[] {
  return nodesOf(scope, 'identifier').filter((id) => {
    if (textOf(parsed, id) !== name) return false;
    const list = id.parent;
    if (id.field === 'name' && list?.type === 'var_spec') return false;
    return !(list?.type === 'expression_list' && list.field === 'left');
  });
}

/** Whether the function declares `name` (so its uses are local) rather than reading a package-level variable. */
function declaresLocally(parsed: ParsedSource, fn: SyntaxNode, name: string): boolean {
  if (parameters(parsed, fn).some((p) => p.name === name)) return true;
  const decls = nodesOf(fn, new Set(['short_var_declaration', 'var_spec']));
  return decls.some((d) => assignmentSides(d)?.left.some((l) => textOf(parsed, l) === name));
}

/** Whether a field named `name` is ever called (`x.name()`, `x.y.name()`) in the file. */
const fieldCalled = (parsed: ParsedSource, name: string): boolean =>
  new RegExp(`\\.${name}\\s*\\(`).test(parsed.source);

/** Whether the cancel function held in `name` is called, handed on, or kept somewhere that is called. */
function cancelUsed(parsed: ParsedSource, scope: SyntaxNode, name: string, depth: number): boolean {
  if (depth > MAX_ALIASES) return true;
  for (const id of readsOf(parsed, scope, name)) {
    const parent = id.parent;
    if (!parent) continue;
    if (parent.type === 'literal_element' && parent.field === 'value') {
      const key = parent.parent && field(parent.parent, 'key');
      if (key && fieldCalled(parsed, textOf(parsed, key))) return true;
      continue;
    }
    const holder =
      parent.type === 'expression_list' ? parent.parent : parent.type === 'var_spec' ? parent : null;
    const sides = holder && assignmentSides(holder);
    if (!sides) return true;
    const at = sides.right.indexOf(id);
    if (at === -1) return true;
    const target = sides.left[sides.left.length === sides.right.length ? at : 0];
    if (!target || textOf(parsed, target) === '_') continue;
    if (target.type === 'selector_expression') {
      const f = field(target, 'field');
      if (f && fieldCalled(parsed, textOf(parsed, f))) return true;
      continue;
    }
    if (target.type !== 'identifier') return true;
    const alias = textOf(parsed, target);
    const fn = enclosingFunction(target);
    const aliasScope = fn && declaresLocally(parsed, fn, alias) ? fn : rootOf(target);
    if (cancelUsed(parsed, aliasScope, alias, depth + 1)) return true;
  }
  return false;
}

const rootOf = (n: SyntaxNode): SyntaxNode => {
  let r = n;
  while (r.parent) r = r.parent;
  return r;
};

function lostCancels(parsed: ParsedSource, calls: SyntaxNode[]): Finding[] {
  const out: Finding[] = [];
  for (const call of calls) {
    if (!WITH_CANCEL.test(callParts(parsed, call).callee)) continue;
    const list = call.parent;
    const holder = list?.type === 'expression_list' ? list.parent : undefined;
    const sides = holder && assignmentSides(holder);
    if (sides?.right.length !== 1 || sides.left.length !== 2) continue;
    const cancel = sides.left[1];
    if (!cancel) continue;
    const name = textOf(parsed, cancel);
    let lost = name === '_';
    if (!lost && cancel.type === 'identifier') {
      const fn = enclosingFunction(call);
      const scope = fn && declaresLocally(parsed, fn, name) ? fn : rootOf(call);
      lost = !cancelUsed(parsed, scope, name, 0);
    }
    if (lost) out.push(finding(parsed, call, LOST_CANCEL));
  }
  return out;
}

/** `context.Background()`/`TODO()` calls in a function body, not counting the functions nested in it. */
function detachedCalls(parsed: ParsedSource, body: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const visit = (n: SyntaxNode) => {
    if (n !== body && FUNCTION_TYPES.has(n.type)) return;
    if (n.type === 'call_expression' && DETACHED.test(callParts(parsed, n).callee)) out.push(n);
    for (const c of n.children) visit(c);
  };
  visit(body);
  return out;
}

function detachedGoroutines(parsed: ParsedSource): Finding[] {
  const out: Finding[] = [];
  const declared = new Map<string, SyntaxNode>();
  for (const d of nodesOf(parsed.root, 'function_declaration')) {
    const name = field(d, 'name');
    if (name) declared.set(textOf(parsed, name), d);
  }
  for (const go of nodesOf(parsed.root, 'go_statement')) {
    const fn = enclosingFunction(go);
    const call = namedChildren(go)[0];
    if (!fn || !call || call.type !== 'call_expression' || !hasContextInScope(parsed, fn)) continue;
    const { fn: callee, args } = callParts(parsed, call);
    const target = callee?.type === 'func_literal' ? callee : callee && declared.get(textOf(parsed, callee));
    const body = target && field(target, 'body');
    const inside = body ? detachedCalls(parsed, body) : [];
    const detachedArg = args.some((a) => {
      const t = textOf(parsed, a).replace(/\s+/g, '');
      if (/^context\.(Background|TODO)\(\)$/.test(t)) return true;
      return (
        a.type === 'identifier' &&
        new RegExp(`\\b${t}\\s*:?=\\s*context\\.(Background|TODO)\\(\\)`).test(textOf(parsed, fn))
      );
    });
    if (inside.length > 0 || detachedArg) out.push(finding(parsed, inside[0] ?? go, DETACHED_GOROUTINE));
  }
  return out;
}

/** Whether `loop` can end: a break out of it, a return or goto inside it (nested functions aside). */
function loopExits(loop: SyntaxNode): boolean {
  let exits = false;
  const visit = (n: SyntaxNode, breakTarget: boolean) => {
    if (exits || (n !== loop && FUNCTION_TYPES.has(n.type))) return;
    if (n.type === 'return_statement' || n.type === 'goto_statement') exits = true;
    if (n.type === 'break_statement' && (breakTarget || n.children.some((c) => c.type === 'label_name')))
      exits = true;
    const inner =
      n !== loop &&
      ['for_statement', 'select_statement', 'expression_switch_statement', 'type_switch_statement'].includes(
        n.type,
      );
    for (const c of n.children) visit(c, breakTarget && !inner);
  };
  visit(loop, true);
  return exits;
}

function uncancellableLoops(parsed: ParsedSource, calls: SyntaxNode[]): Finding[] {
  const out: Finding[] = [];
  for (const loop of nodesOf(parsed.root, 'for_statement')) {
    if (namedChildren(loop).length !== 1) continue; // `for {` has only its body
    let fn = enclosingFunction(loop);
    while (fn && !hasContextParam(parsed, fn)) fn = enclosingFunction(fn);
    if (!fn) continue;
    const body = textOf(parsed, loop);
    if (/\.(Done|Err)\(\)/.test(body) || loopExits(loop)) continue;
    const blocking = calls.find((c) => {
      if (c.startIndex < loop.startIndex || c.endIndex > loop.endIndex) return false;
      const callee = callParts(parsed, c).callee;
      return BLOCKING_FUNCS.test(callee) || BLOCKING_METHODS.test(callee);
    });
    if (blocking) out.push(finding(parsed, loop, UNCANCELLABLE_LOOP));
  }
  return out;
}

export function contextLeaks(parsed: ParsedSource): Finding[] {
  if (!parsed.source.includes('context')) return [];
  const calls = nodesOf(parsed.root, 'call_expression');
  return [...lostCancels(parsed, calls), ...detachedGoroutines(parsed), ...uncancellableLoops(parsed, calls)];
}
