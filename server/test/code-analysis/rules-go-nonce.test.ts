/** Go IVs and nonces followed back to their source (CWE-1204): literals, unfilled or partly spoiled buffers. */
import { describe, expect, it } from 'vitest';
import { findings } from '../helpers/code-analysis';

const go = (body: string, extra = '') =>
  `package m\nimport (\n\t"crypto/cipher"\n\t"crypto/rand"\n)\n${extra}func enc(b cipher.Block) cipher.Stream {\n${body}\n}\n`;

/** [what, vulnerable, safe] */
const CASES: [string, string, string][] = [
  [
    'a buffer never filled',
    go('\tiv := make([]byte, 16)\n\treturn cipher.NewCTR(b, iv)'),
    go('\tiv := make([]byte, 16)\n\trand.Read(iv)\n\treturn cipher.NewCTR(b, iv)'),
  ],
  [
    'a random IV with a constant byte written afterwards',
    go('\tiv := make([]byte, 16)\n\trand.Read(iv)\n\tiv[0] = 1\n\treturn cipher.NewCTR(b, iv)'),
    go('\tiv := make([]byte, 16)\n\tiv[0] = 1\n\trand.Read(iv)\n\treturn cipher.NewCTR(b, iv)'),
  ],
  [
    'half the buffer filled',
    go('\tiv := make([]byte, 16)\n\trand.Read(iv[0:8])\n\treturn cipher.NewCTR(b, iv)'),
    go(
      '\tiv := make([]byte, 16)\n\trand.Read(iv[0:8])\n\trand.Read(iv[8:16])\n\treturn cipher.NewCTR(b, iv)',
    ),
  ],
  [
    'a package-level literal',
    go('\treturn cipher.NewOFB(b, fixed)', 'var fixed = []byte("0123456789abcdef")\n'),
    go(
      '\treturn cipher.NewOFB(b, fresh())',
      'func fresh() []byte { x := make([]byte, 16); rand.Read(x); return x }\n',
    ),
  ],
  [
    'a parameter some caller passes a literal to',
    `${go('\treturn cipher.NewCTR(b, iv)').replace('enc(b cipher.Block)', 'enc(b cipher.Block, iv []byte)')}func use(b cipher.Block) { enc(b, []byte("0123456789abcdef")) }\n`,
    `${go('\treturn cipher.NewCTR(b, iv)').replace('enc(b cipher.Block)', 'enc(b cipher.Block, iv []byte)')}func use(b cipher.Block, iv []byte) { enc(b, iv) }\n`,
  ],
];

describe('Go IV/nonce provenance: vulnerable examples fire, safe ones do not', () => {
  for (const [what, vulnerable, safe] of CASES) {
    it(what, async () => {
      const bad = (await findings(vulnerable, 'go')).filter((f) => f.rule_id === 'security/hardcoded-iv');
      expect(bad.length, vulnerable).toBeGreaterThan(0);
      expect(bad[0]?.cwe).toBe('CWE-1204');
      const good = (await findings(safe, 'go')).filter((f) => f.rule_id === 'security/hardcoded-iv');
      expect(good, safe).toEqual([]);
    });
  }
  it('leaves a decryption with a fixed IV alone (it must reuse the one it was given)', async () => {
    const code = go(
      '\treturn nil\n}\nfunc dec(b cipher.Block) {\n\tcipher.NewCBCDecrypter(b, []byte("0123456789abcdef"))',
    );
    expect((await findings(code, 'go')).map((f) => f.rule_id)).not.toContain('security/hardcoded-iv');
  });
});
