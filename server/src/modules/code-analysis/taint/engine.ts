import type { Finding } from '@tessera/shared';
import { locate } from '../findings';
import { PROFILES } from '../metrics/profiles';
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';
import { TAINT_LANGUAGES } from './languages';
import { parameterSources } from './parameters';
import { TAINT_RULES } from './rules';
import { NAME_LIKE, norm, type Origin } from './syntax';
import type { SinkSpec, TaintKind, TaintLanguage } from './types';

const PATH_LIKE =
  /identifier|member|attribute|subscript|field_access|selector|variable_name|element_reference|scoped|call|invocation|index|^name$/;

const ARGUMENT_LISTS = /^(arguments|argument_list|value_arguments)$/;

/**
 * Intraprocedural taint tracking: inside each function (and the top level), walk statements in source order,
 * mark variables assigned from an untrusted source, clear them when re-assigned from something clean or
 * sanitised, and report a sink call that receives a tainted argument.
 */
export function taintFindings(parsed: ParsedSource): Finding[] {
  const lang = TAINT_LANGUAGES[parsed.language];
  if (!lang) return [];
  const profile = PROFILES[parsed.language];
  const units: SyntaxNode[] = [parsed.root];
  const collect = (node: SyntaxNode): void => {
    for (const child of node.children) {
      if (child.named && profile.functions[child.type]) units.push(child);
      collect(child);
    }
  };
  collect(parsed.root);
  const findings: Finding[] = [];
  const reported = new Set<number>();
  for (const unit of units) {
    new UnitWalker(parsed, lang, (f, at) => {
      if (reported.has(at)) return;
      reported.add(at);
      findings.push(f);
    }).run(unit, profile.functions, unit === parsed.root ? [] : parameterSources(parsed, lang, unit));
  }
  return findings;
}

/** The first child the selector names: a field, `*first` / `*last` named child, or `type:<node type>`. */
function select(node: SyntaxNode, selector: string, not?: SyntaxNode): SyntaxNode | undefined {
  if (selector === '*last') {
    for (let i = node.children.length - 1; i >= 0; i -= 1) {
      const c = node.children[i] as SyntaxNode;
      if (c.named && c !== not && !/comment/.test(c.type)) return c;
    }
    return undefined;
  }
  if (selector === '*first')
    return node.children.find((c) => c.named && c !== not && !/comment/.test(c.type));
  if (selector.startsWith('type:')) {
    const type = selector.slice(5);
    return node.children.find((c) => c.type === type);
  }
  return node.children.find((c) => c.field === selector);
}

class UnitWalker {
  private readonly tainted = new Map<string, Origin>();
  private readonly source: string;

  constructor(
    private readonly parsed: ParsedSource,
    private readonly lang: TaintLanguage,
    private readonly report: (finding: Finding, at: number) => void,
  ) {
    this.source = parsed.source;
  }

  run(unit: SyntaxNode, functions: Record<string, string>, parameters: [string, Origin][]): void {
    for (const [name, origin] of parameters) this.tainted.set(name, origin);
    const visit = (node: SyntaxNode): void => {
      for (const child of node.children) {
        if (child.named && functions[child.type]) continue; // analysed as its own unit
        visit(child);
      }
      if (this.lang.calls.includes(node.type)) this.checkCall(node);
      const assignment = this.lang.assignments.find((a) => a.type === node.type);
      if (assignment) this.assign(node, assignment);
      for (const m of this.lang.memberSinks ?? []) if (m.type === node.type) this.checkMember(node, m);
    };
    for (const child of unit.children) visit(child);
  }

  private checkMember(node: SyntaxNode, sink: NonNullable<TaintLanguage['memberSinks']>[number]): void {
    const member = node.children.find((c) => c.field === sink.member);
    const receiver = node.children.find((c) => c.field === sink.receiver);
    if (!member || !receiver || !sink.name.test(norm(this.source, member))) return;
    const origin = this.taintOf(receiver);
    if (origin) this.flag(sink.kind, node, norm(this.source, node), origin);
  }

  private assign(node: SyntaxNode, spec: TaintLanguage['assignments'][number]): void {
    const target = select(node, spec.target);
    const value = select(node, spec.value, target);
    if (!target || !value || value === target) return;
    const origin = this.taintOf(value);
    const sink = this.lang.propertySinks?.find((p) => p.target.test(norm(this.source, target)));
    if (sink && origin) this.flag(sink.kind, node, norm(this.source, target), origin);
    const names = this.namesIn(target);
    for (const name of names) {
      if (origin) this.tainted.set(name, origin);
      else if (!spec.keeps && !node.type.startsWith('augmented')) this.tainted.delete(name);
    }
  }

  private namesIn(target: SyntaxNode): string[] {
    if (NAME_LIKE.test(target.type) || target.children.length === 0) return [norm(this.source, target)];
    if (PATH_LIKE.test(target.type) && !/call|invocation/.test(target.type))
      return [norm(this.source, target)];
    const names: string[] = [];
    const walk = (n: SyntaxNode): void => {
      if (NAME_LIKE.test(n.type)) names.push(norm(this.source, n));
      else for (const c of n.children) walk(c);
    };
    walk(target);
    return names;
  }

  private calleeAndArgs(call: SyntaxNode): { callee: string; args: SyntaxNode[] } {
    const isList = (c: SyntaxNode) => c.field === 'arguments' || ARGUMENT_LISTS.test(c.type);
    // Kotlin and Swift: `f(x)` is a call_expression holding a call_suffix holding the value_arguments.
    const suffix = call.children.find((c) => c.type === 'call_suffix');
    const argsNode = call.children.find(isList) ?? suffix?.children.find(isList);
    if (argsNode) {
      const callee = this.source.slice(call.startIndex, argsNode.startIndex).replace(/\s+/g, '');
      const wrappers = this.lang.argumentWrappers ?? [];
      const args = argsNode.children
        .filter((c) => c.named && !/comment/.test(c.type))
        .map((a) => {
          if (a.type === 'argument' && a.children.length === 1) return a.children[0] as SyntaxNode;
          if (wrappers.includes(a.type)) return select(a, 'value') ?? select(a, '*last') ?? a;
          return a;
        });
      return { callee, args };
    }
    // Statements such as PHP's echo/include: the keyword, then the operands.
    const first = call.children[0];
    return {
      callee: first ? norm(this.source, first) : '',
      args: call.children.slice(1).filter((c) => c.named && !/comment/.test(c.type)),
    };
  }

  private checkCall(call: SyntaxNode): void {
    const { callee, args } = this.calleeAndArgs(call);
    for (const s of this.lang.sourceArguments ?? []) {
      if (!s.callee.test(callee)) continue;
      const targets = s.into === 'all' ? args : args.slice(s.into, s.into + 1);
      const origin = this.originOf(call);
      for (const target of targets) for (const name of this.namesIn(target)) this.tainted.set(name, origin);
    }
    for (const p of this.lang.propagators ?? []) {
      const target = args[p.into];
      if (!target || !p.callee.test(callee)) continue;
      for (const arg of args) {
        const origin = arg === target ? undefined : this.taintOf(arg);
        if (origin) {
          for (const name of this.namesIn(target)) this.tainted.set(name, origin);
          break;
        }
      }
    }
    for (const sink of this.lang.sinks) {
      if (!sink.callee.test(callee) || !this.conditionsHold(sink, call)) continue;
      const positional = sink.arg === 'any' ? args : args.slice(sink.arg, sink.arg + 1);
      const candidates = sink.argTypes ? positional.filter((a) => sink.argTypes?.test(a.type)) : positional;
      for (const arg of candidates) {
        const origin = this.taintOf(arg);
        if (origin) {
          this.flag(sink.kind, call, callee, origin);
          return;
        }
      }
    }
  }

  private conditionsHold(sink: SinkSpec, call: SyntaxNode): boolean {
    if (!sink.when && !sink.unless) return true;
    const text = this.source.slice(call.startIndex, call.endIndex);
    return (!sink.when || sink.when.test(text)) && !sink.unless?.test(text);
  }

  /** Where an expression's untrusted data comes from, if it carries any. */
  private taintOf(node: SyntaxNode): Origin | undefined {
    if (node.endIndex - node.startIndex > 4000) return this.taintOfChildren(node);
    const clean = this.lang.cleanMembers;
    if (clean?.types.includes(node.type) && clean.pattern.test(norm(this.source, node))) return undefined;
    if (this.lang.calls.includes(node.type)) {
      const { callee } = this.calleeAndArgs(node);
      if (this.lang.sanitizers.some((re) => re.test(callee))) return undefined;
      if (this.lang.sourceCalls.some((re) => re.test(callee))) return this.originOf(node);
    }
    if (
      PATH_LIKE.test(node.type) ||
      node.children.length === 0 ||
      this.lang.sourceNodes?.includes(node.type)
    ) {
      const text = norm(this.source, node);
      const known = this.tainted.get(text);
      if (known) return known;
      if (this.lang.sources.some((re) => re.test(text))) return this.originOf(node);
    }
    return this.taintOfChildren(node);
  }

  private taintOfChildren(node: SyntaxNode): Origin | undefined {
    for (const child of node.children) {
      if (!child.named) continue;
      const origin = this.taintOf(child);
      if (origin) return origin;
    }
    return undefined;
  }

  private originOf(node: SyntaxNode): Origin {
    return { text: norm(this.source, node).slice(0, 60), line: node.startRow + 1 };
  }

  private flag(kind: TaintKind, at: SyntaxNode, sink: string, origin: Origin): void {
    const rule = TAINT_RULES[kind];
    this.report(
      {
        rule_id: `security/${kind}`,
        category: 'security',
        severity: rule.severity,
        confidence: 'high',
        message: `${rule.title}: untrusted input \`${origin.text}\` (line ${origin.line}) reaches \`${sink.slice(0, 60)}\` without sanitizing; ${rule.fix}.`,
        ...locate(this.parsed, at),
        cwe: rule.cwe,
      },
      at.startIndex,
    );
  }
}
