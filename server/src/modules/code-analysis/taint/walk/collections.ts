/**
 * Collections modelled entry by entry: a map's values under constant keys, a list's items by index, and the rest
 * of the collection as one taint. Calls reach them through `collectionCall` (methods.ts), subscripts through
 * `putEntry` (assign.ts).
 */
import type { SyntaxNode } from '../../parsing/tree';
import {
  COLLECTION_ADD,
  COLLECTION_CLEAR,
  COLLECTION_GET,
  COLLECTION_INSERT,
  COLLECTION_PUT,
} from '../models';
import { CLEAN, type Const, copyCollection, type Taint, unionTaint, type Val, withStep } from '../values';
import { readEntry } from './shared';
import type { WalkState } from './state';

/** Collection writes and reads by constant key or index; undefined when the receiver is not modelled. */
export function collectionCall(
  s: WalkState,
  name: string,
  method: string,
  vals: Val[],
  call: SyntaxNode,
): Val | undefined {
  const collection = s.env.collections.get(name);
  if (!collection) return undefined;
  const key = vals[0]?.constant?.value;
  // Keys of several parts (ConfigParser's section and option) are joined into one.
  const joinedKey = (parts: Val[]) =>
    parts.every((v) => v.constant) ? parts.map((v) => String(v.constant?.value)).join('\u0000') : undefined;
  if (method === 'set' && collection.items && vals.length === 2 && typeof key === 'number') {
    putEntry(s, name, key, vals[1]?.taint, call, true);
    return CLEAN;
  }
  if (COLLECTION_PUT.has(method) && vals.length >= 2) {
    putEntry(s, name, joinedKey(vals.slice(0, -1)), vals[vals.length - 1]?.taint, call, false);
    return CLEAN;
  }
  const whole = vals.length > 1 ? joinedKey(vals) : undefined;
  if (method === 'get' && whole !== undefined && collection.keys.has(whole))
    return readEntry({ collection, taint: undefined }, whole);
  if (COLLECTION_ADD.has(method) && vals.length === 1) {
    const copy = copyCollection(collection);
    if (copy.items) {
      copy.items.push(withStep(vals[0]?.taint, s.step(call, `${name}.${method}(…)`)));
      const text = vals[0]?.constant?.value;
      copy.texts = [...(copy.texts ?? [])];
      copy.texts[copy.items.length - 1] = typeof text === 'string' ? text : undefined;
    } else copy.other = unionTaint(copy.other, vals[0]?.taint);
    s.env.collections.set(name, copy);
    return CLEAN;
  }
  if ((COLLECTION_INSERT.has(method) || method === 'add') && vals.length === 2) {
    const copy = copyCollection(collection);
    copy.texts = undefined;
    if (copy.items && typeof key === 'number' && key >= 0 && key <= copy.items.length)
      copy.items.splice(key, 0, vals[1]?.taint);
    else {
      copy.other = unionTaint(copy.other, vals[1]?.taint);
      copy.items = undefined;
    }
    s.env.collections.set(name, copy);
    return CLEAN;
  }
  if (COLLECTION_CLEAR.has(method)) {
    s.env.collections.set(name, {
      keys: new Map(),
      items: collection.items ? [] : undefined,
      other: undefined,
    });
    return CLEAN;
  }
  if (COLLECTION_GET.has(method)) {
    const removes = method === 'pop' || method.startsWith('remove');
    const isIndex = collection.items !== undefined && collection.keys.size === 0;
    let index: Const | undefined = vals[0]?.constant ? key : undefined;
    if (method === 'pop' && vals.length === 0 && collection.items) index = collection.items.length - 1;
    const fallback = vals[1];
    const out = readEntry({ collection, taint: undefined }, index, isIndex);
    if (removes) {
      const copy = copyCollection(collection);
      if (isIndex && typeof index === 'number' && copy.items && index >= 0 && index < copy.items.length) {
        copy.items.splice(index, 1);
        copy.texts?.splice(index, 1);
      } else if (!isIndex && index !== undefined) copy.keys.delete(String(index));
      s.env.collections.set(name, copy);
    }
    if (fallback && !out.taint && index !== undefined && !collection.keys.has(String(index)) && !isIndex)
      return { taint: fallback.taint };
    return out;
  }
  return undefined;
}

/** `m[k] = v`, `m.put(k, v)`: the entry under a constant key, else the collection as a whole. */
export function putEntry(
  s: WalkState,
  name: string,
  key: Const | undefined,
  taint: Taint | undefined,
  at: SyntaxNode,
  index: boolean,
): void {
  const stepped = withStep(
    taint,
    s.step(at, `${name}[${key === undefined ? '…' : JSON.stringify(key)}] = …`),
  );
  const collection = s.env.collections.get(name);
  if (!collection) {
    if (stepped) s.env.vars.set(name, unionTaint(s.env.vars.get(name), stepped) as Taint);
    return;
  }
  const copy = copyCollection(collection);
  if (key === undefined) copy.other = unionTaint(copy.other, stepped);
  else if (index && typeof key === 'number' && copy.items && key >= 0 && key < copy.items.length)
    copy.items[key] = stepped;
  else if (typeof key === 'number' && copy.items && index) copy.other = unionTaint(copy.other, stepped);
  else copy.keys.set(String(key), stepped);
  s.env.collections.set(name, copy);
}
