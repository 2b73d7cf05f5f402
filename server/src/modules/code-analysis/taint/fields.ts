/**
 * The fields a file's classes share between their methods: input a method stored in an own field (`this.q = …`)
 * that another reads, the names a class declares as fields, and fields whose value is a literal never reassigned.
 */
import type { ParsedSource } from '../parsing/parse';
import type { SyntaxNode } from '../parsing/tree';
import { norm } from './syntax';
import { type Const, type Taint, unionTaint } from './values';

/** Assignments to a name (`n = …`, `n += …`, `this.n = …`, `n++`, `--n`), as a global pattern. */
export function writesOf(name: string): RegExp {
  const n = name.replace(/\$/g, '\\$');
  return new RegExp(
    `(^|[^\\w.$]|this\\.|self\\.)${n}\\s*([-+*/%&|^]|<<|>>>?|\\?\\?)?=(?!=)|(\\+\\+|--)\\s*(this\\.)?${n}\\b|\\b${n}\\s*(\\+\\+|--)`,
    'g',
  );
}

/** A literal's value: a number, a plain string, a boolean. */
function literalValue(text: string): { value: Const } | undefined {
  if (/^-?\d+(\.\d+)?[LlFfDd]?$/.test(text)) return { value: Number.parseFloat(text) };
  if (/^"[^"\\]*"$/.test(text)) return { value: text.slice(1, -1) };
  if (text === 'true' || text === 'false') return { value: text === 'true' };
  return undefined;
}

/** An object's own field: `this.q`, `self.q`, `$this->q`, Ruby's `@q`. */
const OWN_FIELD = /^(this\.|self\.|\$this->|@)[A-Za-z_]\w*$/;

export class ClassFields {
  /** Untrusted data a method stored into its object's own field (`this.q = req.query.q`), by class and field. */
  private readonly fieldTaint = new Map<string, Taint>();
  /** The units that read an own field while it held nothing known, by class and field. */
  private readonly fieldReads = new Map<string, Set<SyntaxNode>>();

  constructor(
    private readonly parsed: ParsedSource,
    private readonly functionTypes: Record<string, string>,
  ) {}

  private classOf(unit: SyntaxNode): SyntaxNode | null {
    let node: SyntaxNode | null = unit;
    while (node && !/class|object_declaration/.test(node.type)) node = node.parent;
    return node;
  }

  /** The class (or else the file) whose instances own `this.x` in a unit, and the field: the key of its taint. */
  private fieldKey(unit: SyntaxNode, field: string): string {
    return `${this.classOf(unit)?.startIndex ?? -1}:${field.replace(/^(this|self)\.|^\$this->|^@/, '')}`;
  }

  /**
   * `this.q`, `self.q`, `$this->q`, `@q`; or a bare `q` where the enclosing class declares a field `q` (Java, C#,
   * C++, Kotlin name their own fields without `this`). A local of that name hides it before this is asked.
   */
  isOwnField(unit: SyntaxNode, field: string): boolean {
    if (OWN_FIELD.test(field)) return true;
    const cls = this.classOf(unit);
    return cls !== null && /^[A-Za-z_]\w*$/.test(field) && this.declaredFields(cls).has(field);
  }

  private readonly fieldNames = new Map<SyntaxNode, Set<string>>();

  /** The names a class declares as fields (`private String data;`), not those of classes nested in it. */
  private declaredFields(cls: SyntaxNode): Set<string> {
    const cached = this.fieldNames.get(cls);
    if (cached) return cached;
    const names = new Set<string>();
    const visit = (node: SyntaxNode, inField: boolean) => {
      for (const child of node.children) {
        if (/class|object_declaration/.test(child.type)) continue;
        if (this.functionTypes[child.type]) continue;
        const field = inField || /^(field_declaration|property_declaration)$/.test(child.type);
        if (field && /^(variable_declarator|variable_declaration)$/.test(child.type)) {
          const name = child.children.find((c) => c.field === 'name' || /identifier$/.test(c.type));
          if (name) names.add(norm(this.parsed.source, name));
        }
        if (field && child.type === 'field_identifier') names.add(norm(this.parsed.source, child));
        visit(child, field);
      }
    };
    visit(cls, false);
    this.fieldNames.set(cls, names);
    return names;
  }

  private readonly fieldConstants = new Map<SyntaxNode, Map<string, { value: Const }>>();

  /**
   * A field of the class that is private or final, initialised with a literal, and never assigned anywhere in the
   * class: its value is that literal wherever a method reads it (`private int limit = 5;`, `this.limit`).
   */
  fieldConstant(unit: SyntaxNode, field: string): { value: Const } | undefined {
    const cls = this.classOf(unit);
    if (!cls) return undefined;
    let constants = this.fieldConstants.get(cls);
    if (!constants) {
      constants = new Map();
      this.fieldConstants.set(cls, constants);
      const body = this.parsed.source.slice(cls.startIndex, cls.endIndex);
      for (const decl of [...cls.children, ...cls.children.flatMap((c) => c.children)]) {
        if (decl.type !== 'field_declaration') continue;
        const text = this.parsed.source.slice(decl.startIndex, decl.endIndex);
        if (!/\b(private|final|readonly|const)\b/.test(text)) continue;
        for (const d of decl.children.filter((c) => c.type === 'variable_declarator')) {
          const name = d.children.find((c) => c.field === 'name');
          const value = d.children.find((c) => c.field === 'value');
          const literal = value ? literalValue(norm(this.parsed.source, value)) : undefined;
          if (!name || !literal) continue;
          const n = norm(this.parsed.source, name);
          // The declaration's own initialiser is the one write allowed.
          if ((body.match(writesOf(n)) ?? []).length <= 1) constants.set(n, literal);
        }
      }
    }
    return constants.get(field.replace(/^this\./, ''));
  }

  /** `this.q = …` (`self.q`, `$this->q`, `@q`) with known input: every method of the class may read it. */
  storeField(unit: SyntaxNode, field: string, taint: Taint): void {
    if (taint.weak || !this.isOwnField(unit, field)) return;
    const key = this.fieldKey(unit, field);
    this.fieldTaint.set(key, unionTaint(this.fieldTaint.get(key), taint) as Taint);
  }

  /** What an own field read in a method may hold: what any method of the class stored in it. */
  readField(unit: SyntaxNode, field: string): Taint | undefined {
    if (!this.isOwnField(unit, field)) return undefined;
    const key = this.fieldKey(unit, field);
    const taint = this.fieldTaint.get(key);
    if (!taint) this.fieldReads.set(key, (this.fieldReads.get(key) ?? new Set()).add(unit));
    return taint;
  }

  /** Units that read a field before another method was seen storing input in it: to be walked again. */
  staleFieldReaders(): SyntaxNode[] {
    const out = new Set<SyntaxNode>();
    for (const [key, units] of this.fieldReads)
      if (this.fieldTaint.has(key)) for (const u of units) out.add(u);
    this.fieldReads.clear();
    return [...out];
  }
}
