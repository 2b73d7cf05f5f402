import { CODE_LANGUAGES, type CodeLanguage } from '@tessera/shared';
import { describe, expect, it } from 'vitest';
import { generateFile } from '../../bench/code-analysis/generate';
import { parserFor } from '../src/modules/code-analysis/parsing/grammars';
import { chunkReader, READ_CHUNK } from '../src/modules/code-analysis/parsing/parse';
import { copyTree, type SyntaxNode, walk } from '../src/modules/code-analysis/parsing/tree';

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
