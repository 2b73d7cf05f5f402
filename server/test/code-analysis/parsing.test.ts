import { readFileSync } from 'node:fs';
import { CODE_LANGUAGES, type CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { generateFile } from '../../../bench/code-analysis/generate';
import { grammarFile, parserFor } from '../../src/modules/code-analysis/parsing/grammars';
import { chunkReader, READ_CHUNK } from '../../src/modules/code-analysis/parsing/parse';
import { copyTree, type SyntaxNode, walk } from '../../src/modules/code-analysis/parsing/tree';
import { patchWasm, WASM_PATCHES } from '../../src/modules/code-analysis/parsing/wasm-patch';

/** Every node as `type field start-end`, pre-order: two trees are the same when these lists are. */
function flatten(root: SyntaxNode): string[] {
  const out: string[] = [];
  walk(root, (n) => {
    out.push(`${n.type} ${n.field ?? ''} ${n.startIndex}-${n.endIndex} ${n.startRow}:${n.startCol}`);
    return true;
  });
  return out;
}

async function both(code: string, language: CodeLanguage): Promise<{ chunked: string[]; whole: string[] }> {
  const parser = await parserFor(language);
  const whole = parser.parse(code);
  const chunked = parser.parse(chunkReader(code));
  if (!whole || !chunked) throw new Error('no tree');
  try {
    return { whole: flatten(copyTree(whole, code).root), chunked: flatten(copyTree(chunked, code).root) };
  } finally {
    whole.delete();
    chunked.delete();
  }
}

describe('parser input read in short chunks', () => {
  it('gives the same tree as the whole string in every language', async () => {
    for (const language of CODE_LANGUAGES) {
      const code = generateFile(language).slice(0, 12_000);
      const { whole, chunked } = await both(code, language);
      expect(chunked.length, language).toBeGreaterThan(500);
      expect(chunked, language).toEqual(whole);
    }
  });

  it('never splits a character outside the Basic Multilingual Plane between two reads', async () => {
    // Emoji (two UTF-16 units) placed so that one straddles each chunk boundary.
    let code = '';
    while (code.length < READ_CHUNK * 6) {
      const pad = READ_CHUNK - 1 - (code.length % READ_CHUNK) - 'x = "'.length;
      code += `x = "${'a'.repeat(Math.max(0, pad))}😀"\n`;
    }
    const reader = chunkReader(code);
    let rebuilt = '';
    for (let i = 0; i < code.length; ) {
      const part = reader(i);
      const last = part.charCodeAt(part.length - 1);
      expect(last >= 0xd800 && last <= 0xdbff, `read at ${i} ends inside a pair`).toBe(false);
      rebuilt += part;
      i += part.length;
    }
    expect(rebuilt).toBe(code);
    const { whole, chunked } = await both(code, 'python');
    expect(chunked).toEqual(whole);
    expect(whole.filter((n) => n.startsWith('ERROR'))).toEqual([]);
  });
});

describe('grammar fixes', () => {
  const wasm = (lang: 'swift' | 'kotlin') => new Uint8Array(readFileSync(grammarFile(lang)));

  it('Swift: the scanner state is zeroed, so every parse reads the file about once', async () => {
    const code = generateFile('swift');
    const parser = await parserFor('swift');
    const once = Math.ceil(code.length / READ_CHUNK);
    // The bug showed from the second parse of a process on: the scanner's state came from reused memory.
    for (let i = 0; i < 4; i += 1) {
      let reads = 0;
      const read = chunkReader(code);
      const tree = parser.parse((index: number) => {
        reads += 1;
        return read(index);
      });
      expect(tree?.rootNode.hasError).toBe(false);
      tree?.delete();
      expect(reads, `parse ${i + 1}`).toBeLessThan(once * 3);
    }
  });

  it('patches only the exact buggy function body', () => {
    const swift = wasm('swift');
    const patched = patchWasm(swift, WASM_PATCHES.swift as never);
    expect(patched.applied).toBe(true);
    const changed: number[] = [];
    for (let i = 0; i < swift.length; i += 1) if (swift[i] !== patched.bytes[i]) changed.push(i);
    expect(changed).toHaveLength(1);
    expect(swift[changed[0] as number]).toBe(0x00);
    expect(patched.bytes[changed[0] as number]).toBe(0x01);
    // Applying it again finds calloc(1, 4): not the buggy body, so nothing changes.
    expect(patchWasm(patched.bytes, WASM_PATCHES.swift as never).applied).toBe(false);
    // Another grammar has no such export: left alone.
    const kotlin = wasm('kotlin');
    const untouched = patchWasm(kotlin, WASM_PATCHES.swift as never);
    expect(untouched.applied).toBe(false);
    expect(untouched.bytes).toBe(kotlin);
  });
});
