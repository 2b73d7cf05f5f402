import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer } from 'node:net';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database';

// postgres.js 3.4.9 wrote to a connection's socket after it had closed, from a setImmediate, so the TypeError
// escaped every caller and crashed the process (porsager/postgres#1154, #1208; the outage test hit it about one
// run in three). patches/postgres@3.4.9.patch makes such a write fail its queries with CONNECTION_CLOSED. A
// reserved connection (our migration lock holds one) whose backend is terminated reproduces it every time.
// It also dropped the promise of the catalog query every new connection runs first (fetch_types), so a connection
// cut or cancelled during it was an unhandled rejection, which ends a Node process (porsager/postgres#1192;
// CI's outage test hit it once). A proxy that answers the lookup as a cancelled statement reproduces it every
// time (a 1 ms statement timeout did too, until a warm catalog answered within it).
const url = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;

/** A backend message: its type byte, its length, its body. */
const message = (type: string, body: string) => {
  const head = Buffer.alloc(5);
  head.write(type);
  head.writeInt32BE(Buffer.byteLength(body) + 4, 1);
  return Buffer.concat([head, Buffer.from(body)]);
};
/** What Postgres sends for a statement its statement_timeout cancelled, and that it is ready for the next. */
const CANCELLED = Buffer.concat([
  message('E', 'SERROR\0VERROR\0C57014\0Mcanceling statement due to statement timeout\0\0'),
  message('Z', 'I'),
]);
const clients: postgres.Sql[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end({ timeout: 1 })));
});

describe.skipIf(!usingPostgres())('the Postgres driver when a connection dies under it', () => {
  it('rejects the next query on a reserved connection whose backend was terminated, without crashing', async () => {
    const uncaught: unknown[] = [];
    const record = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', record);
    try {
      const sql = postgres(url ?? '', { max: 1, onnotice: () => {} });
      const admin = postgres(url ?? '', { max: 1, onnotice: () => {} });
      clients.push(sql, admin);
      const reserved = await sql.reserve();
      const [row] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await admin`select pg_terminate_backend(${row?.pid ?? 0})`;
      await new Promise((r) => setTimeout(r, 300));
      const outcome = await reserved`select 1`.then(
        () => 'answered',
        (err: { code?: string }) => err.code,
      );
      await new Promise((r) => setTimeout(r, 100));
      expect(uncaught).toEqual([]);
      expect(outcome).toBe('CONNECTION_CLOSED');
      // The pool itself is fine afterwards.
      expect(await sql`select 2 as two`).toEqual([{ two: 2 }]);
    } finally {
      process.off('uncaughtException', record);
    }
  });

  it("fails the first query when a new connection's type lookup is cancelled, with no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const record = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', record);
    // Between the driver and Postgres: the type lookup is answered as Postgres answers a statement cancelled by
    // its timeout (an ErrorResponse with SQLSTATE 57014, then ReadyForQuery), every time; the rest goes through.
    const target = new URL(url ?? '');
    const proxy = createServer((client) => {
      const server = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
      const close = () => {
        client.destroy();
        server.destroy();
      };
      client.on('error', close).on('close', close);
      server.on('error', close).on('close', close);
      server.pipe(client);
      client.on('data', (chunk: Buffer) => {
        if (chunk.includes('typarray')) client.write(CANCELLED);
        else server.write(chunk);
      });
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const proxied = new URL(target);
    proxied.hostname = '127.0.0.1';
    proxied.port = String((proxy.address() as AddressInfo).port);
    try {
      const outcomes: unknown[] = [];
      for (let i = 0; i < 5; i++) {
        const sql = postgres(proxied.toString(), { max: 1, onnotice: () => {}, connect_timeout: 5 });
        clients.push(sql);
        outcomes.push(
          await sql`select 1`.then(
            () => 'answered',
            (err: { code?: string }) => err.code,
          ),
        );
      }
      await new Promise((r) => setTimeout(r, 100));
      expect(unhandled).toEqual([]);
      // 57014: canceling statement due to statement timeout.
      expect(outcomes).toEqual(Array(5).fill('57014'));
    } finally {
      process.off('unhandledRejection', record);
      proxy.close();
    }
  });
});
