import type { FindingConfidence } from '@tessera/shared';
import { hull, type Range, unboundedAbove } from './numeric/ranges';
import type { NumericKind, TaintKind } from './types';

/** One step of a finding's trace: where the value was read, copied or passed on. */
export interface TraceStep {
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  note: string;
  /** Project analyses: the file the step is in. */
  path?: string;
}

/** Untrusted data: where it came from, the steps it took, and the sinks it has been made safe for. */
export interface Taint {
  origin: { text: string; line: number };
  steps: TraceStep[];
  /** Kinds a sanitiser on the way neutralised (an HTML encoder: `xss`); absent = safe for nothing. */
  safe?: readonly TaintKind[];
  /**
   * A parameter of unknown origin rather than known input: reported only where it is built into a command or
   * query text (`built`), the way Bandit's B608 reads SQL assembled from strings.
   */
  weak?: boolean;
  built?: boolean;
  /**
   * Text built from values of unknown origin, no input proven (`"SELECT … " + name`): an audit finding (low) at
   * the sinks where the field's rule sets report one (Bandit B608/B602, gosec G201/G204, Semgrep's audit rules).
   * Always weak and built.
   */
  audit?: boolean;
  /**
   * A number read from input (parsed, or declared numeric), drawn at random or set to a type's extreme, and the
   * range it may hold here: it matters only at the numeric sinks (arithmetic, divisors, indexes, casts, sizes), and
   * for every other sink it is as harmless as the parse makes it.
   */
  numeric?: Range;
  /** Not input but a value nobody chose (a random draw, `Integer.MAX_VALUE`): see confidenceAt. */
  uncontrolled?: boolean;
  /**
   * A parameter that reached a sink which takes whatever its function is given as the destination (a browser
   * redirect, `location.href = url`, Semgrep's open-redirect-from-function): reported at medium, built or not.
   */
  parameterSink?: boolean;
}

export const NUMERIC_KINDS: readonly TaintKind[] = [
  'integer-overflow',
  'integer-underflow',
  'divide-by-zero',
  'array-index',
  'numeric-truncation',
  'numeric-conversion',
  'unchecked-loop-condition',
  'resource-exhaustion',
  'uncontrolled-allocation',
] satisfies NumericKind[];

/** Sinks where only the size matters: a count, a delay, a capacity with an upper bound checked is fine. */
const SIZE_KINDS: readonly TaintKind[] = [
  'unchecked-loop-condition',
  'resource-exhaustion',
  'uncontrolled-allocation',
];

/**
 * The sinks a weak taint (a parameter of unknown origin) is reported at, once built into a string: query languages
 * and command lines, where text spliced from a caller's value changes what runs (an LDAP filter or XPath expression
 * as much as SQL: Semgrep's ldap-injection, Roslyn's CA3005/CA3008 read a formatted parameter so).
 */
export const WEAK_KINDS: readonly TaintKind[] = [
  'sql-injection',
  'command-injection',
  'ldap-injection',
  'xpath-injection',
];

/** The sinks audit findings are reported at: text built from unknown values runs there as a program. */
export const AUDIT_KINDS: readonly TaintKind[] = [
  'sql-injection',
  'command-injection',
  'code-injection',
  'unsafe-deserialization',
];

/**
 * Sinks where any non-constant value of unknown origin is an audit finding, built or not: a command line from a
 * variable is how gosec G204 and Bandit B602/B605 read it.
 */
export const AUDIT_ANY_VALUE_KINDS: readonly TaintKind[] = ['command-injection'];

/**
 * How sure a finding of this taint at a sink of this kind is, or undefined when it is not reported at all.
 * `everyInput`: the `all` threat model (taintCatalogue), under which a value nobody chose is suspect (medium); under
 * `web` it is mostly a sentinel (`min = Integer.MAX_VALUE` before a loop), an audit finding (low).
 */
export function confidenceAt(
  taint: Taint,
  kind: TaintKind,
  everyInput: boolean,
): FindingConfidence | undefined {
  if (taint.safe?.includes(kind)) return undefined;
  // Numbers reach only numeric sinks, and only numbers do: a string from input is not an overflowing operand.
  const numericKind = NUMERIC_KINDS.includes(kind);
  if (taint.numeric || numericKind) {
    if (!taint.numeric || !numericKind || taint.weak) return undefined;
    if (SIZE_KINDS.includes(kind) && !unboundedAbove(taint.numeric)) return undefined;
    if (taint.uncontrolled) return everyInput ? 'medium' : 'low';
    return 'high';
  }
  if (!taint.weak) return 'high';
  if (!taint.audit && taint.parameterSink) return 'medium';
  if (!taint.audit && taint.built && WEAK_KINDS.includes(kind)) return 'medium';
  if (taint.built && AUDIT_KINDS.includes(kind)) return 'low';
  return AUDIT_ANY_VALUE_KINDS.includes(kind) ? 'low' : undefined;
}

/** An audit taint born at `origin`: a string built there from values nobody proved to be input. */
export function auditTaint(origin: Taint['origin'], step: TraceStep): Taint {
  return { origin, steps: [step], weak: true, built: true, audit: true };
}

/** A weak taint that went into a string being built. */
export function built(taint: Taint | undefined): Taint | undefined {
  return taint && !taint.built ? { ...taint, built: true } : taint;
}

export type Const = string | number | boolean | null;

/** A modelled collection: entries by constant key, items by index, and whatever went in under unknown keys. */
export interface Collection {
  keys: Map<string, Taint | undefined>;
  items: (Taint | undefined)[] | undefined;
  other: Taint | undefined;
  /** The constant text of each leading item, where known (`["sh", "-c", cmd]`: a shell command line). */
  texts?: (string | undefined)[];
}

/** What an expression evaluates to: its taint, its constant value when known, its collection model. */
export interface Val {
  taint?: Taint | undefined;
  constant?: { value: Const } | undefined;
  collection?: Collection | undefined;
}

export const CLEAN: Val = {};

const MAX_STEPS = 16;

export function withStep(taint: Taint | undefined, step: TraceStep): Taint | undefined {
  if (!taint) return undefined;
  const last = taint.steps[taint.steps.length - 1];
  if (last && last.line === step.line && last.note === step.note) return taint;
  const steps = taint.steps.length >= MAX_STEPS ? taint.steps : [...taint.steps, step];
  return { ...taint, steps };
}

/** Two taints meeting in one value: safe only for what both are safe for; the less sanitised one is reported. */
export function unionTaint(a: Taint | undefined, b: Taint | undefined): Taint | undefined {
  if (!a) return b;
  if (!b) return a;
  // A number is no danger where text is (the parse that made it once cleaned it): text from input outweighs it.
  if (Boolean(a.numeric) !== Boolean(b.numeric)) return a.numeric ? b : a;
  if (a.numeric && b.numeric) {
    const base = a.weak && !b.weak ? b : a;
    const out: Taint = { ...base, numeric: hull(a.numeric, b.numeric) };
    if (!(a.uncontrolled && b.uncontrolled)) delete out.uncontrolled;
    return out;
  }
  // Known input outweighs a parameter of unknown origin, which outweighs a value nobody knows anything about.
  if (a.weak !== b.weak) return a.weak ? b : a;
  if (a.audit !== b.audit) return a.audit ? b : a;
  if (!a.safe && !b.safe) return a;
  const safe = (a.safe ?? []).filter((k) => b.safe?.includes(k));
  const base = (a.safe?.length ?? 0) <= (b.safe?.length ?? 0) ? a : b;
  if (safe.length > 0) return { ...base, safe };
  // Safe for nothing on both paths: the taint as it is, still weak or an audit where it was one.
  const { safe: _dropped, ...rest } = base;
  return rest;
}

export function markSafe(taint: Taint | undefined, kinds: readonly TaintKind[]): Taint | undefined {
  if (!taint) return undefined;
  return { ...taint, safe: [...new Set([...(taint.safe ?? []), ...kinds])] };
}

export function collectionTaint(c: Collection | undefined): Taint | undefined {
  if (!c) return undefined;
  let t = c.other;
  for (const v of c.keys.values()) t = unionTaint(t, v);
  for (const v of c.items ?? []) t = unionTaint(t, v);
  return t;
}

export function copyCollection(c: Collection): Collection {
  return {
    keys: new Map(c.keys),
    items: c.items ? [...c.items] : undefined,
    other: c.other,
    texts: c.texts ? [...c.texts] : undefined,
  };
}

const SHELL_FLAG = /^(-c|\/c|\/C)$/;

const itemsTaint = (c: Collection): Taint | undefined =>
  (c.items ?? []).reduce<Taint | undefined>((t, v) => unionTaint(t, v), undefined);

function joinCollections(a: Collection | undefined, b: Collection | undefined): Collection | undefined {
  if (!a || !b) return a ?? b;
  const keys = new Map(a.keys);
  for (const [k, v] of b.keys) keys.set(k, unionTaint(keys.get(k), v));
  let items: (Taint | undefined)[] | undefined;
  if (a.items && b.items && a.items.length === b.items.length)
    items = a.items.map((t, i) => unionTaint(t, b.items?.[i]));
  let other = unionTaint(a.other, b.other);
  if (!items) other = unionTaint(other, unionTaint(itemsTaint(a), itemsTaint(b)));
  // Paths that pass `-c` (sh) and `/c` (cmd.exe) both pass a shell its command line: the flag is kept.
  const sameText = (x: string | undefined, y: string | undefined) =>
    x === y ? x : SHELL_FLAG.test(x ?? '') && SHELL_FLAG.test(y ?? '') ? '-c' : undefined;
  const texts = a.texts && b.texts ? a.texts.map((t, i) => sameText(t, b.texts?.[i])) : undefined;
  return { keys, items, other, texts };
}

/**
 * The abstract state at one point of a function: which names hold untrusted data, which hold known constants,
 * which hold modelled collections, and whether the point is reachable at all.
 */
export class Env {
  vars = new Map<string, Taint>();
  consts = new Map<string, Const>();
  collections = new Map<string, Collection>();
  /** Declared types of names (Java locals and parameters): `xp` → `XPath`. */
  types = new Map<string, string>();
  /** Names assigned in this function: a local named like a source (`args`) is the local, not the source. */
  defined = new Set<string>();
  /** Names holding a parsed URL, and the name it was parsed from (`url = urlparse(target)`). */
  parsedFrom = new Map<string, string>();
  dead = false;

  clone(): Env {
    const e = new Env();
    e.defined = new Set(this.defined);
    e.parsedFrom = new Map(this.parsedFrom);
    e.vars = new Map(this.vars);
    e.consts = new Map(this.consts);
    for (const [k, c] of this.collections) e.collections.set(k, copyCollection(c));
    e.types = this.types;
    e.dead = this.dead;
    return e;
  }

  /** The state where paths meet: tainted on any live path, constant only when every live path agrees. */
  static join(states: Env[]): Env {
    const live = states.filter((s) => !s.dead);
    const first = live[0];
    if (!first) {
      const dead = (states[0] ?? new Env()).clone();
      dead.dead = true;
      return dead;
    }
    const out = first.clone();
    for (const s of live.slice(1)) {
      for (const k of s.defined) out.defined.add(k);
      for (const [k, t] of s.vars) out.vars.set(k, unionTaint(out.vars.get(k), t) as Taint);
      for (const [k, v] of out.consts) if (!s.consts.has(k) || s.consts.get(k) !== v) out.consts.delete(k);
      for (const [k, c] of s.collections) {
        const joined = joinCollections(out.collections.get(k), c);
        if (joined) out.collections.set(k, joined);
      }
    }
    return out;
  }

  /** Assigns a whole value to a name: its taint, constant and collection model replace the old ones. */
  set(name: string, val: Val): void {
    this.defined.add(name);
    this.parsedFrom.delete(name);
    if (val.taint) this.vars.set(name, val.taint);
    else this.vars.delete(name);
    if (val.constant) this.consts.set(name, val.constant.value);
    else this.consts.delete(name);
    if (val.collection) this.collections.set(name, copyCollection(val.collection));
    else this.collections.delete(name);
  }

  get(name: string): Val {
    const collection = this.collections.get(name);
    const taint = unionTaint(this.vars.get(name), collectionTaint(collection));
    const out: Val = {};
    if (taint) out.taint = taint;
    if (this.consts.has(name)) out.constant = { value: this.consts.get(name) as Const };
    if (collection) out.collection = collection;
    return out;
  }

  has(name: string): boolean {
    return this.defined.has(name) || this.vars.has(name) || this.collections.has(name);
  }
}

/** A parameter's taint at a sink that reports parameters as they are (see `parameterSink`); others unchanged. */
export function atParameterSink(
  taint: Taint | undefined,
  parameters: boolean | undefined,
): Taint | undefined {
  if (!parameters || !taint?.weak || taint.audit || taint.numeric) return taint;
  return { ...taint, parameterSink: true };
}
