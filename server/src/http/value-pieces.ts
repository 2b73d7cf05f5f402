/**
 * A parsed body with many values goes back from the parsing thread in pieces of at most PIECE_VALUES values, one
 * piece rebuilt a turn of the event loop. Rebuilding a structured clone costs the event loop about 0.65 µs a value
 * on a 2-vCPU machine: a body at the bound of 100,000 values (a tool schema of 25,000 properties in 1 MB) held it
 * ~50 ms in one piece, every other request of the process waiting.
 *
 * The thread splits the value (splitValue): a container of more values than a piece holds goes as an empty shell,
 * and its entries follow in pieces, in order, each naming the path of the container it fills; a child too large for
 * a piece is split the same way after its shell. The event loop fills the shells in that order (fillPiece). A body
 * from JSON.parse is a tree (no value is shared), so sizes add up.
 */

export const PIECE_VALUES = 4_000;

type Key = string | number;
type Container = Record<Key, unknown> | unknown[];

/** Entries for the container at `path` (from the top), in order. */
export interface Piece {
  path: Key[];
  entries: [Key, unknown][];
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

function entriesOf(node: Container): [Key, unknown][] {
  if (Array.isArray(node)) return node.map((v, i) => [i, v]);
  return Object.keys(node).map((k) => [k, node[k]]);
}

function shellOf(node: Container): Container {
  return Array.isArray(node) ? [] : {};
}

/** How many values each container holds, itself included; walked without recursion. */
function sizesOf(root: Container): Map<Container, number> {
  const sizes = new Map<Container, number>();
  const stack: { node: Container; done: boolean }[] = [{ node: root, done: false }];
  while (stack.length > 0) {
    const { node, done } = stack.pop() as { node: Container; done: boolean };
    const children = Array.isArray(node) ? node : Object.values(node);
    if (done) {
      let size = 1;
      for (const child of children) size += isContainer(child) ? (sizes.get(child) ?? 1) : 1;
      sizes.set(node, size);
      continue;
    }
    stack.push({ node, done: true });
    for (const child of children) if (isContainer(child)) stack.push({ node: child, done: false });
  }
  return sizes;
}

/**
 * The value as a shell to send at once (the whole value when it is small) and the pieces that fill it, in the
 * order they must be applied. On the parsing thread.
 */
export function splitValue(value: unknown, limit = PIECE_VALUES): { shell: unknown; pieces: Piece[] } {
  if (!isContainer(value)) return { shell: value, pieces: [] };
  const sizes = sizesOf(value);
  if ((sizes.get(value) ?? 0) <= limit) return { shell: value, pieces: [] };
  const pieces: Piece[] = [];
  // Containers still to split, each after the piece that holds its shell: a stack, last first, keeps the order.
  const pending: { node: Container; path: Key[] }[] = [{ node: value, path: [] }];
  while (pending.length > 0) {
    const { node, path } = pending.pop() as { node: Container; path: Key[] };
    let batch: [Key, unknown][] = [];
    let batchValues = 0;
    const later: { node: Container; path: Key[] }[] = [];
    const flush = () => {
      if (batch.length > 0) pieces.push({ path, entries: batch });
      batch = [];
      batchValues = 0;
    };
    for (const [key, child] of entriesOf(node)) {
      const size = isContainer(child) ? (sizes.get(child) ?? 1) : 1;
      if (size > limit && isContainer(child)) {
        batch.push([key, shellOf(child)]);
        later.push({ node: child, path: [...path, key] });
        continue;
      }
      if (batchValues + size > limit) flush();
      batch.push([key, child]);
      batchValues += size;
    }
    flush();
    // The large children are filled after all of this container's pieces: their shells are in place by then.
    for (let i = later.length - 1; i >= 0; i--) pending.push(later[i] as { node: Container; path: Key[] });
  }
  return { shell: shellOf(value), pieces };
}

/** Applies one piece to the shell it fills, on the event loop: arrays in order, objects' keys as own properties. */
export function fillPiece(root: unknown, piece: Piece): void {
  let node = root as Container;
  for (const key of piece.path) node = (node as Record<Key, unknown>)[key] as Container;
  if (Array.isArray(node)) {
    for (const [, value] of piece.entries) node.push(value);
    return;
  }
  for (const [key, value] of piece.entries) {
    // `__proto__` from JSON.parse is an own property: it stays one.
    Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true });
  }
}
