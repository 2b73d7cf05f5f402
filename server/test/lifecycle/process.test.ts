import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { entryArgs, exited, newDataDir, runCli, SERVER, startServerProcess } from '../helpers/process';

const dataDir = newDataDir('proc');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function startProcess(env: Record<string, string>, expectDemoKey = false) {
  return startServerProcess(dataDir, env, { expectDemoKey });
}

describe('the server process', () => {
  it('first start: prints a demo key that works; SIGTERM under load finishes in-flight requests and exits 0', async () => {
    const server = await startProcess({ LOG_LEVEL: 'info' }, true);
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
      // The credentials were printed once, on the first start: a later one says how to get in again.
      expect(logs).toContain('cli demo reset');
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 90_000);

  it('`pnpm cli demo reset` gives the demo account a new password and test key that work', async () => {
    const reset = (await runCli({ dataDir }, ['demo', 'reset'])) as {
      email: string;
      password: string;
      key: string;
    };
    expect(reset.email).toBe('demo@tessera.local');
    expect(reset.key).toMatch(/^sk_test_/);
    const server = await startProcess({ LOG_LEVEL: 'warn' });
    try {
      const models = await fetch(`${server.url}/v1/models`, {
        headers: { authorization: `Bearer ${reset.key}` },
      });
      expect(models.status).toBe(200);
      const signIn = (password: string) =>
        fetch(`${server.url}/trpc/auth.signIn`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-tessera-csrf': '1' },
          body: JSON.stringify({ email: reset.email, password }),
        });
      expect((await signIn(reset.password)).status).toBe(200);
      expect((await signIn(`${reset.password}x`)).status).toBe(401);
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 90_000);

  it('refuses to start with a bad environment, naming each bad variable (from its sources, as `pnpm dev`)', async () => {
    const child = spawn(process.execPath, entryArgs('sources', 'main'), {
      cwd: SERVER,
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

describe('the built server (`pnpm start`) on a fresh clone', () => {
  const emptyData = newDataDir('built', { empty: true });
  afterAll(() => rmSync(emptyData, { recursive: true, force: true }));

  it('creates its database in an empty data directory, serves from main.js with its worker threads built too, and exits 0 on SIGTERM', async () => {
    const server = await startServerProcess(emptyData, {}, { expectDemoKey: true });
    try {
      const headers = { authorization: `Bearer ${server.demoKey}`, 'content-type': 'application/json' };
      // Code analysis runs in the pool's worker threads, loaded from their built entries.
      const analysis = await fetch(`${server.url}/api/code/analyze`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ language: 'javascript', code: 'function f(a) {\n  return a + 1;\n}\n' }),
      });
      expect(analysis.status).toBe(200);
      expect(((await analysis.json()) as { summary: { functions: number } }).summary.functions).toBe(1);
      // A prompt over 16,384 characters is counted on the counting thread.
      const chat = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          model: 'tessera-long-100k',
          messages: [{ role: 'user', content: 'hello world '.repeat(3_000) }],
        }),
      });
      expect(chat.status).toBe(200);
      expect(
        ((await chat.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens,
      ).toBeGreaterThan(6_000);

      server.child.kill('SIGTERM');
      expect(await exited(server.child)).toBe(0);
      expect(server.output()).toContain('shutdown complete');
      expect(server.output()).not.toMatch(/thread stopped|worker.*(error|exit)/i);
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 90_000);
});
