import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { isPublicAddress, literalAddressRefusal, webhookAgent } from './addresses';

describe('webhook addresses', () => {
  it('tells public addresses from loopback, private, link-local, reserved and mapped ones', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      'not an address',
    ])
      expect(isPublicAddress(a), a).toBe(false);
    expect(isPublicAddress('172.32.0.1')).toBe(true);
  });

  it('refuses literal non-public hosts in a URL, not names or public literals', () => {
    expect(literalAddressRefusal('http://127.0.0.1:3000/x')).toContain('not a public address');
    expect(literalAddressRefusal('http://[fe80::1]/x')).toContain('not a public address');
    expect(literalAddressRefusal('https://8.8.8.8/x')).toBeUndefined();
    expect(literalAddressRefusal('https://hooks.example.com/x')).toBeUndefined();
  });

  it('connects through a name to loopback only when private addresses are allowed', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://localhost:${(server.address() as AddressInfo).port}/`;
    const strict = webhookAgent(false);
    const open = webhookAgent(true);
    try {
      const err = await fetch(url, { dispatcher: strict }).then(
        () => undefined,
        (e: unknown) => e as Error & { cause?: Error },
      );
      expect(err?.cause?.message).toContain('not a public address');
      const res = await fetch(url, { dispatcher: open });
      expect(await res.text()).toBe('ok');
    } finally {
      await Promise.all([strict.close(), open.close()]);
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
