import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = mkdtempSync(join(tmpdir(), 'tessera-proc-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  demoKey: string | undefined;
}

/** The real entry point as an operator runs it, on a fresh embedded database. */
async function startProcess(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: join(import.meta.dirname, '..'),
    env: {
      ...process.env,
      DATABASE_URL: '',
      REDIS_URL: '',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const deadline = Date.now() + 45_000;
  while (!/running at (http:\/\/\S+)/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = /running at (http:\/\/\S+)/.exec(out)?.[1] ?? '';
  await new Promise((r) => setTimeout(r, 300));
  return { child, url, output: () => out, demoKey: /test key\s+(sk_test_\S+)/.exec(out)?.[1] };
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

describe('the server process', () => {
  it('first start: prints a demo key that works; SIGTERM under load finishes in-flight requests and exits 0', async () => {
    const server = await startProcess({ LOG_LEVEL: 'info' });
    try {
      expect(server.demoKey).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
      const headers = { authorization: `Bearer ${server.demoKey}` };
      expect((await fetch(`${server.url}/v1/models`, { headers })).status).toBe(200);

      const inflight = Array.from({ length: 40 }, () =>
        fetch(`${server.url}/v1/models`, { headers }).then((r) => r.status),
      );
      await new Promise((r) => setTimeout(r, 5));
      server.child.kill('SIGTERM');
      const statuses = await Promise.allSettled(inflight);
      // Every request that reached the server before the signal completed normally; later ones were refused
      // at connect time, never answered with an error.
      const answered = statuses.filter((s) => s.status === 'fulfilled');
      expect(answered.length).toBeGreaterThan(0);
      for (const s of answered) expect(s.value).toBe(200);
      expect(await exited(server.child)).toBe(0);
      expect(server.output()).toContain('shutdown complete');
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 90_000);

  it('second start on the same data: no new demo account; logs carry no key or password', async () => {
    const server = await startProcess({ LOG_LEVEL: 'debug' });
    try {
      expect(server.demoKey).toBeUndefined();
      const secret = `sk_live_${'A'.repeat(28)}WXYZ`;
      await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
      await fetch(`${server.url}/trpc/auth.signIn`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tessera-csrf': '1' },
        body: JSON.stringify({ email: 'demo@tessera.local', password: 'hunter2-not-the-password' }),
      });
      server.child.kill('SIGTERM');
      await exited(server.child);
      const logs = server.output();
      expect(logs).toContain('"status":401');
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain('A'.repeat(28));
      expect(logs).not.toContain('hunter2-not-the-password');
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 90_000);

  it('refuses to start with a bad environment, naming each bad variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: join(import.meta.dirname, '..'),
      env: { ...process.env, PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    expect(await exited(child)).toBe(1);
    expect(err).toContain('Invalid environment configuration');
    expect(err).toMatch(/PORT:/);
    expect(err).toMatch(/LOG_LEVEL:/);
  }, 30_000);
});
