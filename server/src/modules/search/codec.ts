import { B, W_BODY, W_TITLE } from './bm25';

/**
 * The binary format of compressed postings (blocks.ts stores and merges them): a block of at most
 * BLOCK_SIZE postings of one term is a bytea of unsigned LEB128 varints, per posting by ascending
 * document ordinal: ord − previous ord (the first: ord), title tf, body tf, title length, body
 * length; its positions (column `pos`) per posting: the count, the first position, then the gaps.
 * A run is a term's postings sorted by impact, descending, cut into blocks (runBlocks).
 */
export const BLOCK_SIZE = 128;

export interface References {
  title: number;
  body: number;
}

/** Postings of one term, column by column. */
export interface Postings {
  ord: number[];
  tt: number[];
  tb: number[];
  tl: number[];
  bl: number[];
  /** Each posting's positions, ascending; null as soon as one posting's are unknown (old blocks). */
  pos: number[][] | null;
}

export const emptyPostings = (): Postings => ({ ord: [], tt: [], tb: [], tl: [], bl: [], pos: [] });

/** The impact of a posting (postings.ts), in float64. */
export function impactOf(tt: number, tb: number, tl: number, bl: number, refs: References): number {
  return (W_TITLE * tt) / (1 - B + (B * tl) / refs.title) + (W_BODY * tb) / (1 - B + (B * bl) / refs.body);
}

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);
/** The smallest float4 not below x, so that a stored maximum never understates an impact. */
export function float4Up(x: number): number {
  f32[0] = x;
  let y = f32[0] as number;
  if (y >= x) return y;
  f32Bits[0] = (f32Bits[0] as number) + (y >= 0 ? 1 : -1);
  y = f32[0] as number;
  return y;
}

/**
 * Varints into a growing buffer. One writer serves every block of a run (`reset`, then `take` a copy of
 * exactly the bytes written): a buffer allocated per block cost more than encoding a one-posting block.
 */
class ByteWriter {
  bytes = new Uint8Array(256);
  length = 0;
  varint(value: number) {
    if (this.length + 8 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    let v = value;
    while (v >= 128) {
      this.bytes[this.length++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    this.bytes[this.length++] = v;
  }
  reset(): this {
    this.length = 0;
    return this;
  }
  take(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

const scratch = new ByteWriter();

/** Postings' indexes by ascending ordinal: the order inside a block. */
const byOrdinal = (p: Postings, indexes: number[]) =>
  indexes.length === 1 ? indexes : [...indexes].sort((x, y) => (p.ord[x] as number) - (p.ord[y] as number));

/** Encodes postings (any order) as one block; the caller keeps n ≤ BLOCK_SIZE. */
export function encodeBlock(p: Postings, indexes: number[]): Uint8Array {
  const sorted = byOrdinal(p, indexes);
  const w = scratch.reset();
  let previous = 0;
  for (const i of sorted) {
    const ord = p.ord[i] as number;
    w.varint(ord - previous);
    previous = ord;
    w.varint(p.tt[i] as number);
    w.varint(p.tb[i] as number);
    w.varint(p.tl[i] as number);
    w.varint(p.bl[i] as number);
  }
  return w.take();
}

/** The positions of the same postings as encodeBlock, in its order; null when unknown. */
export function encodePositions(p: Postings, indexes: number[]): Uint8Array | null {
  if (!p.pos) return null;
  const w = scratch.reset();
  for (const i of byOrdinal(p, indexes)) {
    const list = p.pos[i] as number[];
    w.varint(list.length);
    let previous = 0;
    for (const position of list) {
      w.varint(position - previous);
      previous = position;
    }
  }
  return w.take();
}

/**
 * Reads a block's unsigned varints (7 bits a byte, low first) in order, without allocating per value; reading past
 * the end throws `search <what> truncated`. Every decoder of blocks and positions reads through one.
 */
export class VarintReader {
  private offset = 0;
  constructor(
    private readonly data: Uint8Array,
    private readonly what: string,
  ) {}

  next(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.offset >= this.data.length) throw new Error(`search ${this.what} truncated`);
      const byte = this.data[this.offset++] as number;
      result += (byte & 127) * scale;
      if (byte < 128) return result;
      scale *= 128;
    }
  }

  /** Whether every byte was read (a block longer than its count is malformed). */
  get done(): boolean {
    return this.offset === this.data.length;
  }
}

/**
 * Decodes a block's positions: posting k's positions are flat[start[k]] .. flat[start[k+1] − 1].
 * Throws on truncated or overlong data.
 */
export function decodePositions(data: Uint8Array, n: number): { start: Uint32Array; flat: Uint32Array } {
  const reader = new VarintReader(data, 'positions');
  const read = () => reader.next();
  const start = new Uint32Array(n + 1);
  // At most one position a byte: the flat array never needs more room than the data has bytes.
  const flat = new Uint32Array(data.length);
  let count = 0;
  for (let k = 0; k < n; k++) {
    start[k] = count;
    const m = read();
    let position = 0;
    for (let j = 0; j < m; j++) {
      position += read();
      flat[count++] = position;
    }
  }
  start[n] = count;
  if (!reader.done) throw new Error('search positions longer than their count');
  return { start, flat: flat.subarray(0, count) };
}

/** A decoded block: column arrays of n postings, by ascending ordinal. */
export interface DecodedBlock {
  n: number;
  ord: Float64Array;
  tt: Uint32Array;
  tb: Uint32Array;
  tl: Uint32Array;
  bl: Uint32Array;
}

/** Decodes a block of n postings; throws on truncated or overlong data rather than reading garbage. */
export function decodeBlock(data: Uint8Array, n: number): DecodedBlock {
  const out: DecodedBlock = {
    n,
    ord: new Float64Array(n),
    tt: new Uint32Array(n),
    tb: new Uint32Array(n),
    tl: new Uint32Array(n),
    bl: new Uint32Array(n),
  };
  const reader = new VarintReader(data, 'block');
  const read = () => reader.next();
  let ord = 0;
  for (let i = 0; i < n; i++) {
    ord += read();
    out.ord[i] = ord;
    out.tt[i] = read();
    out.tb[i] = read();
    out.tl[i] = read();
    out.bl[i] = read();
  }
  if (!reader.done) throw new Error('search block longer than its count');
  return out;
}

export interface BlockRow {
  term: string;
  maxImpact: number;
  n: number;
  data: Uint8Array;
  pos: Uint8Array | null;
}

/** A term's postings as one run: sorted by impact (descending, then ordinal), cut into blocks. */
export function runBlocks(term: string, p: Postings, refs: References): BlockRow[] {
  const n = p.ord.length;
  const impact = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    impact[i] = impactOf(p.tt[i] as number, p.tb[i] as number, p.tl[i] as number, p.bl[i] as number, refs);
  }
  // Most terms of a batch are in one of its documents: nothing to sort.
  const order =
    n === 1
      ? [0]
      : Array.from({ length: n }, (_, i) => i).sort(
          (x, y) =>
            (impact[y] as number) - (impact[x] as number) || (p.ord[x] as number) - (p.ord[y] as number),
        );
  const blocks: BlockRow[] = [];
  for (let start = 0; start < n; start += BLOCK_SIZE) {
    const indexes = n <= BLOCK_SIZE ? order : order.slice(start, start + BLOCK_SIZE);
    blocks.push({
      term,
      maxImpact: float4Up(impact[indexes[0] as number] as number),
      n: indexes.length,
      data: encodeBlock(p, indexes),
      pos: encodePositions(p, indexes),
    });
  }
  return blocks;
}

/** Bytes from a bytea column: postgres.js gives a Buffer, PGlite a Uint8Array. */
export function byteaOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string' && value.startsWith('\\x')) return Buffer.from(value.slice(2), 'hex');
  throw new Error('unexpected bytea value');
}

/**
 * The quoted lexeme at `start` of a tsvector's or tsquery's text (`'it''s'`: quotes doubled, backslashes
 * escaped), and the index after its closing quote; undefined when there is none or it is not closed.
 */
export function readQuotedLexeme(text: string, start: number): { lexeme: string; end: number } | undefined {
  if (text[start] !== "'") return undefined;
  let lexeme = '';
  let i = start + 1;
  for (;;) {
    const ch = text[i];
    if (ch === undefined) return undefined;
    if (ch === "'") {
      if (text[i + 1] !== "'") return { lexeme, end: i + 1 };
      lexeme += "'";
      i += 2;
    } else if (ch === '\\') {
      const next = text[i + 1];
      if (next === undefined) return undefined;
      lexeme += next;
      i += 2;
    } else {
      lexeme += ch;
      i++;
    }
  }
}
