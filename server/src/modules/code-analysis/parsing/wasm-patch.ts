/**
 * A fix applied to a grammar's .wasm bytes before loading it.
 *
 * tree-sitter-swift's external scanner allocates its state with `calloc(0, sizeof(struct ScannerState))`: zero
 * elements, so nothing is cleared, and `ongoing_raw_str_hash_count` starts as whatever the allocator left there.
 * tree-sitter creates the scanner anew for every parse; from the second parse of a process on, the reused memory is
 * not zero, the scanner believes it is inside a raw string `#"…"#` and scans to the end of the file looking for its
 * closing hashes at nearly every token. Parsing becomes quadratic: a 2,000-line file is lexed ~85 times over
 * (15,188 reads instead of 237; 130–430 ms instead of ~40 ms), 4,000 lines take over a second.
 *
 * The patch turns that `calloc(0, 4)` into `calloc(1, 4)` (the same instruction with a different constant, so no
 * offset moves). It applies only when the function's body is exactly the buggy one; any other build loads as is.
 */

interface Patch {
  /** Exported function to patch. */
  exportName: string;
  /** The function's whole body (local declarations, instructions, `end`) as it must be found. */
  expected: number[];
  /** Offsets within the body and the byte to write there. */
  writes: [number, number][];
}

export const WASM_PATCHES: Record<string, Patch> = {
  swift: {
    exportName: 'tree_sitter_swift_external_scanner_create',
    // no locals; i32.const 0; i32.const 4; call <calloc>; end
    expected: [0x00, 0x41, 0x00, 0x41, 0x04, 0x10, -1, 0x0b],
    writes: [[2, 0x01]],
  },
};

class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public pos = 0,
  ) {}
  byte(): number {
    if (this.pos >= this.bytes.length) throw new Error('truncated wasm');
    return this.bytes[this.pos++] as number;
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
      if (shift > 28) throw new Error('bad LEB128');
    }
  }
  name(): string {
    const length = this.u32();
    const start = this.pos;
    this.pos += length;
    return new TextDecoder().decode(this.bytes.subarray(start, this.pos));
  }
}

/** Skips one import's description (after module and field names). */
function skipImportDesc(r: Reader): boolean {
  const kind = r.byte();
  if (kind === 0) {
    r.u32(); // type index
    return true;
  }
  if (kind === 1) {
    r.byte(); // table element type
    const flags = r.u32();
    r.u32();
    if (flags & 1) r.u32();
  } else if (kind === 2) {
    const flags = r.u32();
    r.u32();
    if (flags & 1) r.u32();
  } else if (kind === 3) {
    r.byte();
    r.byte();
  } else {
    r.u32(); // tag: attribute, type index
    r.u32();
  }
  return false;
}

/**
 * Returns the bytes with the patch applied when the module holds exactly the expected function body, else the
 * bytes unchanged (and `applied: false`).
 */
export function patchWasm(input: Uint8Array, patch: Patch): { bytes: Uint8Array; applied: boolean } {
  const unchanged = { bytes: input, applied: false };
  try {
    const r = new Reader(input, 8); // magic + version
    let importedFunctions = 0;
    let target: number | undefined;
    while (r.pos < input.length) {
      const id = r.byte();
      const size = r.u32();
      const end = r.pos + size;
      if (id === 2) {
        const count = r.u32();
        for (let i = 0; i < count; i += 1) {
          r.name();
          r.name();
          if (skipImportDesc(r)) importedFunctions += 1;
        }
      } else if (id === 7) {
        const count = r.u32();
        for (let i = 0; i < count; i += 1) {
          const name = r.name();
          const kind = r.byte();
          const index = r.u32();
          if (kind === 0 && name === patch.exportName) target = index;
        }
      } else if (id === 10 && target !== undefined) {
        const count = r.u32();
        for (let i = 0; i < count; i += 1) {
          const bodySize = r.u32();
          const bodyStart = r.pos;
          if (i + importedFunctions === target) {
            const body = input.subarray(bodyStart, bodyStart + bodySize);
            const matches =
              body.length === patch.expected.length &&
              patch.expected.every((b, k) => b === -1 || body[k] === b);
            if (!matches) return unchanged;
            const bytes = new Uint8Array(input);
            for (const [offset, value] of patch.writes) bytes[bodyStart + offset] = value;
            return { bytes, applied: true };
          }
          r.pos = bodyStart + bodySize;
        }
        return unchanged;
      }
      r.pos = end;
    }
  } catch {
    return unchanged;
  }
  return unchanged;
}
