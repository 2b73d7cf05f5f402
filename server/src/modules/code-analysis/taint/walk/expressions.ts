import type { SyntaxNode } from '../../parsing/tree';
import { foldBinary, foldIndex, foldSlice, truthy, unescapeLiteral } from '../constants';
import type { FlowSyntax } from '../flow/types';
import { NAME_LIKE } from '../syntax';
import type { TaintLanguage } from '../types';
import {
  built,
  CLEAN,
  type Collection,
  type Const,
  collectionTaint,
  markSafe,
  type Taint,
  unionTaint,
  type Val,
} from '../values';
import { NumberWalker } from './numbers';
import { CONCATENATING, field, namedChildren, numericFormatSafeFor, readEntry } from './shared';

/** Expressions: literals and their constants, operators folded, strings built, subscripts, list and dict literals, macros. */
export abstract class ExpressionWalker extends NumberWalker {
  /**
   * A macro's tokens (Rust's `format!("…", html_escape::encode_text(&x))`): a path followed by a parenthesised
   * group is a call, and a sanitiser's group is clean.
   */
  protected tokenTree(node: SyntaxNode): Val {
    let taint: Taint | undefined;
    let path = '';
    let head: SyntaxNode | undefined;
    const endPath = (calls: boolean) => {
      // A name read on its own (`q.name` reads `q`); a called path is a function, not data.
      if (head && !calls) taint = unionTaint(taint, this.evaluate(head).taint);
      path = '';
      head = undefined;
    };
    let generics = 0;
    for (const child of node.children) {
      const text = this.text(child);
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
        const sanitised = called !== '' && this.lang.sanitizers.some((re) => re.test(called));
        const kinds = (this.lang.kindSanitizers ?? []).find(
          (k) => called !== '' && k.callee.test(called),
        )?.kinds;
        endPath(called !== '');
        if (!sanitised) {
          const inner = this.tokenTree(child).taint;
          taint = unionTaint(taint, kinds ? markSafe(inner, kinds) : inner);
        }
        continue;
      }
      endPath(false);
      if (child.named) taint = unionTaint(taint, this.evaluate(child).taint);
    }
    endPath(false);
    return taint ? { taint } : CLEAN;
  }

  /** `std::cin >> name`: the stream's input is stored into the right operand. */
  protected extraction(node: SyntaxNode, source: RegExp): Val | undefined {
    const left = field(node, 'left');
    const right = field(node, 'right');
    const op = field(node, 'operator') ?? node.children.find((c) => !c.named);
    if (!left || !right || !op || this.text(op) !== '>>') return undefined;
    const leftText = this.text(left);
    if (!source.test(leftText)) return undefined;
    if (left.type === node.type) this.evaluate(left);
    this.assignTo(right, { taint: this.newTaint(node, leftText.split('>>')[0] ?? leftText) }, node);
    return CLEAN;
  }

  /** `{ __html: html }` in JSX: a property whose value is written into the page. */
  protected checkKey(node: SyntaxNode, sink: NonNullable<TaintLanguage['keySinks']>[number]): void {
    const key = field(node, 'key');
    const value = field(node, 'value');
    if (!key || !value || !sink.key.test(this.text(key))) return;
    const v = this.evaluate(value);
    if (v.taint) this.flag(sink.kind, node, this.text(key), v.taint);
  }

  protected stringLiteral(flow: FlowSyntax, node: SyntaxNode): Val {
    let text = '';
    let taint: Taint | undefined;
    let constant = true;
    const parts: Val[] = [];
    const visit = (n: SyntaxNode) => {
      for (const c of n.children) {
        if (flow.literals.interpolations.includes(c.type)) {
          constant = false;
          // `f"{TABLE}"` of a constant is constant text, not a value of unknown origin.
          const inner = namedChildren(c);
          const v = inner.length === 1 && inner[0] ? this.evaluate(inner[0]) : this.evaluateChildren(c);
          parts.push(v);
          taint = unionTaint(taint, v.taint);
        } else if (flow.literals.interpolatedValues?.includes(c.type)) {
          // PHP's `"id=$id"`, Kotlin's `"$id"`: the variable itself sits in the string.
          constant = false;
          const v = this.evaluate(c);
          parts.push(v);
          taint = unionTaint(taint, v.taint);
        } else if (flow.literals.stringParts.includes(c.type)) {
          text += this.literalPart(c);
        } else if (flow.literals.strings.includes(c.type)) visit(c);
      }
    };
    visit(node);
    if (taint && !taint.numeric) return { taint: built(taint) };
    if (constant) return { constant: { value: text } };
    const audit = this.auditOf(node, [{ constant: { value: text } }, ...parts]);
    return audit ? { taint: audit } : CLEAN;
  }

  /** A literal's text piece as the program sees it: Python nests its escapes inside `string_content`. */
  private literalPart(part: SyntaxNode): string {
    const raw = (from: number, to: number) => this.source.slice(from, to);
    if (part.type === 'escape_sequence') return unescapeLiteral(raw(part.startIndex, part.endIndex));
    let text = '';
    let at = part.startIndex;
    for (const e of part.children.filter((c) => c.type === 'escape_sequence')) {
      text += raw(at, e.startIndex) + unescapeLiteral(raw(e.startIndex, e.endIndex));
      at = e.endIndex;
    }
    return text + raw(at, part.endIndex);
  }

  protected binary(node: SyntaxNode): Val {
    // Grammars without fields (Kotlin's `additive_expression`): operands by position, the operator between them.
    const operands = namedChildren(node);
    const left = field(node, 'left') ?? operands[0];
    const right = field(node, 'right') ?? (operands.length > 1 ? operands[operands.length - 1] : undefined);
    const op =
      field(node, 'operator') ?? node.children.find((c) => !c.named && c.startIndex >= (left?.endIndex ?? 0));
    const a = left ? this.evaluate(left) : CLEAN;
    const opText = op ? this.text(op) : '';
    // Short circuit: a constant left side decides whether the right side runs.
    if (a.constant && /^(&&|and|\|\||or)$/.test(opText)) {
      const t = truthy(a.constant.value);
      if ((t && /^(\|\||or)$/.test(opText)) || (!t && /^(&&|and)$/.test(opText))) return a;
    }
    const b = right ? this.evaluate(right) : CLEAN;
    // A number from input or chance: the operator is checked for what that range can make of it.
    const number = this.arithmetic(node, opText, left, right, a, b);
    if (a.constant && b.constant) {
      const v = foldBinary(opText, a.constant.value, b.constant.value);
      if (v !== undefined) return { constant: { value: v } };
    }
    if (/^(==|!=|<|>|<=|>=|===|!==|instanceof)$/.test(opText)) return CLEAN;
    // Numbers are no danger to the other sinks: text built from one is as clean as the parse made it.
    const ta = a.taint?.numeric ? undefined : a.taint;
    const tb = b.taint?.numeric ? undefined : b.taint;
    let taint =
      built(unionTaint(ta, tb)) ??
      (CONCATENATING.test(opText)
        ? this.auditOf(node, [
            { ...a, taint: ta },
            { ...b, taint: tb },
          ])
        : undefined) ??
      number;
    // Python's `"… %d" % value`: formatting with numeric conversions only.
    if (opText === '%' && typeof a.constant?.value === 'string')
      taint = markSafe(taint, numericFormatSafeFor(a.constant.value));
    return taint ? { taint } : CLEAN;
  }

  protected comparison(node: SyntaxNode): Val {
    const operands = namedChildren(node);
    const ops = node.children.filter((c) => c.field === 'operators');
    const vals = operands.map((o) => this.evaluate(o));
    let result: Const | undefined = true;
    for (let i = 0; i < ops.length; i += 1) {
      const a = vals[i]?.constant;
      const b = vals[i + 1]?.constant;
      const opNode = ops[i] as SyntaxNode;
      const op = this.source.slice(opNode.startIndex, opNode.endIndex).replace(/\s+/g, ' ');
      if (!a || !b) return CLEAN;
      const v = foldBinary(op, a.value, b.value);
      if (v === undefined) return CLEAN;
      result = result && v;
    }
    return { constant: { value: result ?? null } };
  }

  protected unary(node: SyntaxNode, operandField: string): Val {
    const operand = field(node, operandField) ?? namedChildren(node)[0];
    const v = operand ? this.evaluate(operand) : CLEAN;
    const op = node.children.find((c) => !c.named);
    const opText = op ? this.text(op) : '';
    if (v.constant) {
      if (opText === '!' || opText === 'not') return { constant: { value: !truthy(v.constant.value) } };
      if (opText === '-' && typeof v.constant.value === 'number')
        return { constant: { value: -v.constant.value } };
    }
    return opText === '!' || opText === 'not' ? CLEAN : { taint: v.taint };
  }

  protected subscript(node: SyntaxNode, spec: { object: string; index: string }): Val {
    const objectNode = field(node, spec.object);
    const indexNode = field(node, spec.index);
    const object = objectNode ? this.evaluate(objectNode) : CLEAN;
    if (indexNode?.type === 'slice') {
      const parts = namedChildren(indexNode).map((p) => this.evaluate(p).constant?.value);
      if (object.constant) {
        const v = foldSlice(object.constant.value, parts[0], parts[1]);
        if (v !== undefined) return { constant: { value: v } };
      }
      return { taint: object.taint };
    }
    const index = indexNode ? this.evaluate(indexNode) : CLEAN;
    this.checkIndex(node, indexNode, index);
    if (object.constant && index.constant) {
      const v = foldIndex(object.constant.value, index.constant.value);
      if (v !== undefined) return { constant: { value: v } };
    }
    if (object.collection && index.constant) return readEntry(object, index.constant.value);
    return { taint: object.taint };
  }

  protected list(node: SyntaxNode): Val {
    const vals = namedChildren(node).map((c) => this.evaluate(c));
    const items = vals.map((v) => v.taint);
    const texts = vals.map((v) => (typeof v.constant?.value === 'string' ? v.constant.value : undefined));
    const collection: Collection = { keys: new Map(), items, other: undefined, texts };
    const taint = items.reduce<Taint | undefined>((t, v) => unionTaint(t, v), undefined);
    return taint ? { taint, collection } : { collection };
  }

  protected dict(node: SyntaxNode, spec: { pair: string; key: string; value: string }): Val {
    const collection: Collection = { keys: new Map(), items: undefined, other: undefined };
    for (const pair of node.children) {
      if (pair.type !== spec.pair) {
        if (pair.named) collection.other = unionTaint(collection.other, this.evaluate(pair).taint);
        continue;
      }
      const keyNode = field(pair, spec.key);
      const valueNode = field(pair, spec.value);
      // JavaScript's `{ Location: url }`: a bare property name is the key itself, not a variable read.
      const key: Val =
        keyNode?.type === 'property_identifier'
          ? { constant: { value: this.text(keyNode) } }
          : keyNode
            ? this.evaluate(keyNode)
            : CLEAN;
      const value = valueNode ? this.evaluate(valueNode) : CLEAN;
      const sink = this.lang.keySinks?.find((k) => k.type === pair.type);
      if (sink && keyNode && value.taint && sink.key.test(this.text(keyNode)))
        this.flag(sink.kind, pair, this.text(keyNode), value.taint);
      if (key.constant) collection.keys.set(String(key.constant.value), value.taint);
      else collection.other = unionTaint(collection.other, unionTaint(key.taint, value.taint));
    }
    // An options object passed whole (`client.search(base, { filter })`) carries what it holds.
    const taint = this.flow?.dictsCarry ? collectionTaint(collection) : undefined;
    return taint ? { taint, collection } : { collection };
  }

  protected declareTypes(node: SyntaxNode, spec: { type: string; declarator: string; name: string }): void {
    const typeNode = field(node, spec.type);
    if (!typeNode) return;
    const simple = this.text(typeNode).replace(/<.*>/, '').replace(/\[\]/g, '').split('.').pop();
    if (!simple) return;
    const declarators = spec.declarator ? node.children.filter((c) => c.field === spec.declarator) : [node];
    // Declarations outside any function are the class's fields: their types hold in every method.
    const isField = this.unit === this.ctx.parsed.root;
    for (const d of declarators) {
      const name = field(d, spec.name);
      if (!name) continue;
      this.env.types.set(this.text(name), simple);
      if (isField) {
        this.ctx.fieldTypes.set(this.text(name), simple);
        this.ctx.fieldTypes.set(`this.${this.text(name)}`, simple);
      }
    }
  }
}
