import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createLogger, redactNested } from './logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger('info', destination), lines };
}

describe('log redaction', () => {
  it('replaces secrets at the top, one level down in any object, and in request headers', () => {
    const { logger, lines } = capture();
    logger.info({ password: 'p1', key: 'sk_live_1', token: 't1', apiKey: 'a1', keyId: 'key_1' }, 'top');
    logger.info(
      { input: { password: 'p2', email: 'a@b.c' }, upstream: { apiKey: 'a2', name: 'openai' } },
      'nested',
    );
    logger.info(
      { req: { headers: { authorization: 'Bearer sk_live_2', cookie: 'sid=1', accept: '*/*' } } },
      'req',
    );
    logger.info({ headers: { authorization: 'Bearer sk_live_3' } }, 'headers');
    const text = lines.map((l) => JSON.stringify(l)).join('\n');
    for (const secret of ['p1', 'sk_live_1', 't1', 'a1', 'p2', 'a2', 'sk_live_2', 'sid=1', 'sk_live_3']) {
      expect(text).not.toContain(secret);
    }
    expect(lines[0]).toMatchObject({ password: '[redacted]', key: '[redacted]', keyId: 'key_1' });
    expect(lines[1]).toMatchObject({
      input: { password: '[redacted]', email: 'a@b.c' },
      upstream: { name: 'openai' },
    });
    expect(lines[2]).toMatchObject({ req: { headers: { authorization: '[redacted]', accept: '*/*' } } });
  });

  it("an error's own secret field is replaced and its message and stack kept", () => {
    const { logger, lines } = capture();
    const err = Object.assign(new Error('upstream refused'), { key: 'sk-upstream-secret' });
    logger.error({ err }, 'failed');
    expect(JSON.stringify(lines[0])).not.toContain('sk-upstream-secret');
    expect(lines[0]?.err).toMatchObject({ message: 'upstream refused', key: '[redacted]', type: 'Error' });
    expect(String((lines[0]?.err as { stack?: string } | undefined)?.stack)).toContain('upstream refused');
    // The caller's objects are left as they were.
    expect(err.key).toBe('sk-upstream-secret');
  });

  it("a line without secrets is the caller's own object, not a copy", () => {
    const line = { requestId: 'req_1', status: 200, principal: { accountId: 'acc_1' } };
    expect(redactNested(line)).toBe(line);
  });
});

describe('stdout', () => {
  /** The fixture's lines on stdout, parsed, and its exit code. */
  function fixture() {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/log-lines.ts'], {
      cwd: join(import.meta.dirname, '..'),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    const lines: { n: number; msg: string }[] = [];
    let rest = '';
    child.stdout.on('data', (d: Buffer) => {
      const parts = (rest + d.toString('utf8')).split('\n');
      rest = parts.pop() ?? '';
      for (const part of parts) lines.push(JSON.parse(part) as { n: number; msg: string });
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // A fixture that fails to exit must not outlive its test.
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    return { child, lines, exited, stderr: () => stderr };
  }

  it('batches lines yet delivers each within a moment, and writes the rest at exit', async () => {
    const { child, lines, exited } = fixture();
    // A lone line is far below a batch: the timer sends it.
    await vi.waitFor(() => expect(lines.map((l) => l.msg)).toEqual(['first']), { timeout: 10_000 });
    child.stdin.write('many\n');
    await vi.waitFor(() => expect(lines).toHaveLength(501), { timeout: 5_000 });
    child.stdin.write('exit\n');
    expect(await exited).toBe(0);
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: 502 }, (_, n) => n));
  }, 30_000);

  it('exits cleanly when the reader of stdout has gone (EPIPE on the last lines)', async () => {
    const { child, lines, exited, stderr } = fixture();
    await vi.waitFor(() => expect(lines).toHaveLength(1), { timeout: 10_000 });
    child.stdout.destroy();
    child.stdin.write('exit\n');
    expect(await exited).toBe(0);
    // No stack trace of a failed write at exit.
    expect(stderr()).toBe('');
  }, 30_000);

  it('writes every line when the process ends with nothing left to do (no process.exit)', async () => {
    const { child, lines, exited } = fixture();
    await vi.waitFor(() => expect(lines).toHaveLength(1), { timeout: 10_000 });
    // 500 lines and the last at once: the end comes while most of them are still gathered or being written.
    child.stdin.write('many\nend\n');
    expect(await exited).toBe(0);
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: 502 }, (_, n) => n));
  }, 30_000);
});
