import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from './secret-box';
import { signPayload, verifySignature } from './sign';

describe('webhook signatures', () => {
  it('sign HMAC-SHA256 over "<t>.<body>" and verify within the tolerance only', () => {
    const body = '{"id":"alert_1"}';
    const header = signPayload('whsec_x', body, 1_700_000_000);
    const mac = createHmac('sha256', 'whsec_x').update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${mac}`);
    expect(verifySignature('whsec_x', body, header, 1_700_000_100)).toBe(true);
    expect(verifySignature('whsec_y', body, header, 1_700_000_100)).toBe(false);
    expect(verifySignature('whsec_x', `${body} `, header, 1_700_000_100)).toBe(false);
    // A replay after the tolerance is refused.
    expect(verifySignature('whsec_x', body, header, 1_700_000_301)).toBe(false);
    expect(verifySignature('whsec_x', body, 'garbage', 1_700_000_000)).toBe(false);
  });
});

describe('SecretBox', () => {
  it('encrypts with the key (a fresh IV each time) and reads back; without a key, stores it as it is', () => {
    const box = new SecretBox(Buffer.alloc(32, 7));
    const a = box.seal('whsec_secret');
    expect(a).toMatch(/^v1:/);
    expect(a).not.toContain('whsec_secret');
    expect(box.seal('whsec_secret')).not.toBe(a);
    expect(box.open(a)).toBe('whsec_secret');
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(a)).toThrow();
    expect(() => new SecretBox(undefined).open(a)).toThrow(/SECRETS_ENCRYPTION_KEY/);
    const plain = new SecretBox(undefined).seal('whsec_secret');
    expect(box.open(plain)).toBe('whsec_secret');
  });
});
