import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('/healthz and /readyz', () => {
  it('is alive and ready once migrated, saying what it checked', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      database: string;
      migrations: { applied: number; expected: number };
    };
    expect(body.status).toBe('ready');
    expect(body.database).toBe('ok');
    expect(body.migrations.applied).toBe(body.migrations.expected);
    expect(body.migrations.expected).toBeGreaterThan(0);
  });

  it('is unavailable (503) when a migration of this build is missing', async () => {
    const { db } = server.services.ctx;
    await db.execute(
      sql`create table drizzle.migrations_backup as select * from drizzle.__drizzle_migrations`,
    );
    try {
      await db.execute(
        sql`delete from drizzle.__drizzle_migrations where id = (select max(id) from drizzle.__drizzle_migrations)`,
      );
      const res = await fetch(`${server.url}/readyz`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { status: string }).status).toBe('unavailable');
    } finally {
      await db.execute(sql`delete from drizzle.__drizzle_migrations`);
      await db.execute(sql`insert into drizzle.__drizzle_migrations select * from drizzle.migrations_backup`);
      await db.execute(sql`drop table drizzle.migrations_backup`);
    }
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('answers 503 draining once shutdown has begun', async () => {
    const other = await startTestServer();
    const { app } = other;
    try {
      expect((await fetch(`${other.url}/readyz`)).status).toBe(200);
      // The flag close() sets first; checked over HTTP here since a closing server refuses new connections.
      app.locals.draining = true;
      const res = await fetch(`${other.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'draining' });
      app.locals.draining = false;
      const closing = other.close();
      expect(app.locals.draining).toBe(true);
      await closing;
    } finally {
      await other.close();
    }
  });
});
