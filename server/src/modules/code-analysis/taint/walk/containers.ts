/**
 * List and dict literals, and subscript reads: the values collections are built from and read by (constant keys
 * and indices entry by entry, slices folded).
 */
import type { SyntaxNode } from '../../parsing/tree';
import { foldIndex, foldSlice } from '../constants';
import { CLEAN, type Collection, collectionTaint, type Taint, unionTaint, type Val } from '../values';
import { checkIndex } from './numbers';
import { field, namedChildren, readEntry } from './shared';
import type { WalkState } from './state';

export function subscriptRead(s: WalkState, node: SyntaxNode, spec: { object: string; index: string }): Val {
  const objectNode = field(node, spec.object);
  const indexNode = field(node, spec.index);
  const object = objectNode ? s.evaluate(objectNode) : CLEAN;
  if (indexNode?.type === 'slice') {
    const parts = namedChildren(indexNode).map((p) => s.evaluate(p).constant?.value);
    if (object.constant) {
      const v = foldSlice(object.constant.value, parts[0], parts[1]);
      if (v !== undefined) return { constant: { value: v } };
    }
    return { taint: object.taint };
  }
  const index = indexNode ? s.evaluate(indexNode) : CLEAN;
  checkIndex(s, node, indexNode, index);
  if (object.constant && index.constant) {
    const v = foldIndex(object.constant.value, index.constant.value);
    if (v !== undefined) return { constant: { value: v } };
  }
  if (object.collection && index.constant) return readEntry(object, index.constant.value);
  return { taint: object.taint };
}

export function listLiteral(s: WalkState, node: SyntaxNode): Val {
  const vals = namedChildren(node).map((c) => s.evaluate(c));
  const items = vals.map((v) => v.taint);
  const texts = vals.map((v) => (typeof v.constant?.value === 'string' ? v.constant.value : undefined));
  const collection: Collection = { keys: new Map(), items, other: undefined, texts };
  const taint = items.reduce<Taint | undefined>((t, v) => unionTaint(t, v), undefined);
  return taint ? { taint, collection } : { collection };
}

export function dictLiteral(
  s: WalkState,
  node: SyntaxNode,
  spec: { pair: string; key: string; value: string },
): Val {
  const collection: Collection = { keys: new Map(), items: undefined, other: undefined };
  for (const pair of node.children) {
    if (pair.type !== spec.pair) {
      if (pair.named) collection.other = unionTaint(collection.other, s.evaluate(pair).taint);
      continue;
    }
    const keyNode = field(pair, spec.key);
    const valueNode = field(pair, spec.value);
    // JavaScript's `{ Location: url }`: a bare property name is the key itself, not a variable read.
    const key: Val =
      keyNode?.type === 'property_identifier'
        ? { constant: { value: s.text(keyNode) } }
        : keyNode
          ? s.evaluate(keyNode)
          : CLEAN;
    const value = valueNode ? s.evaluate(valueNode) : CLEAN;
    const sink = s.lang.keySinks?.find((k) => k.type === pair.type);
    if (sink && keyNode && value.taint && sink.key.test(s.text(keyNode)))
      s.flag(sink.kind, pair, s.text(keyNode), value.taint);
    if (key.constant) collection.keys.set(String(key.constant.value), value.taint);
    else collection.other = unionTaint(collection.other, unionTaint(key.taint, value.taint));
  }
  // An options object passed whole (`client.search(base, { filter })`) carries what it holds.
  const taint = s.flow?.dictsCarry ? collectionTaint(collection) : undefined;
  return taint ? { taint, collection } : { collection };
}
