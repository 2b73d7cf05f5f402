import { eq } from 'drizzle-orm';
import { afterAll, beforeAll } from 'vitest';
import { type AllowancePeriodRow, allowancePeriods, allowanceReservations } from '../../src/db/schema';
import type { Clock } from '../../src/lib/clock';
import { MonthlyTokenAllowance } from '../../src/modules/allowance';
import type { Principal } from '../../src/modules/keys';
import { createAccount } from './fixtures';
import { startTestServer, type TestServer } from './server';

type AllowanceReservationRow = typeof allowanceReservations.$inferSelect;

/** A clock the tests move forward by hand; `closeAll` ages leases through it. */
export interface SteppedClock extends Clock {
  advance(ms: number): void;
}

/** One server on its own database, and what the lease tests use to build instances and read the rows back. */
export interface LeaseSuite {
  readonly server: TestServer;
  /** Instances as separate servers would have them: leases of 1,000 tokens, written only when flushed here. */
  instance(): MonthlyTokenAllowance;
  /** A live Pro principal, on a new account, with this monthly allowance. */
  principalFor(monthlyTokens: number): Promise<Principal>;
  period(accountId: string): Promise<AllowancePeriodRow | undefined>;
  /** The account's reservation rows: a lease is one of them. */
  leaseRows(accountId: string): Promise<AllowanceReservationRow[]>;
  /** Ages every lease past its maximum age, then closes: every lease whose calls are done is closed. */
  closeAll(instances: MonthlyTokenAllowance[]): Promise<void>;
}

function steppedClock(startMs: number): SteppedClock {
  let nowMs = startMs;
  return {
    now: () => nowMs,
    advance: (ms) => {
      nowMs += ms;
    },
  };
}

/**
 * Registers the suite's hooks in the calling test file. `server` is set before the file's first test; the
 * functions can be taken off the object at once. The clock starts on 22 November 2026 unless the file brings its own.
 */
export function useLeaseSuite(
  clock: SteppedClock = steppedClock(Date.UTC(2026, 10, 22, 12, 0, 0)),
): LeaseSuite {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock });
  });
  afterAll(async () => {
    await server?.close();
  });

  return {
    get server() {
      return server;
    },
    instance() {
      return new MonthlyTokenAllowance(server.services.ctx, {
        leaseTokens: 1_000,
        leaseMaxAgeMs: 2_000,
        leaseFlushMs: 60_000,
      });
    },
    async principalFor(monthlyTokens) {
      const account = await createAccount(server, { plan: 'pro' });
      return {
        keyId: 'key_x',
        accountId: account.id,
        mode: 'live',
        last4: 'abcd',
        plan: 'pro',
        limits: { requestsPerMinute: 1_000, monthlyTokens },
      };
    },
    async period(accountId) {
      const [row] = await server.services.ctx.db
        .select()
        .from(allowancePeriods)
        .where(eq(allowancePeriods.accountId, accountId));
      return row;
    },
    async leaseRows(accountId) {
      return server.services.ctx.db
        .select()
        .from(allowanceReservations)
        .where(eq(allowanceReservations.accountId, accountId));
    },
    async closeAll(instances) {
      clock.advance(2_001);
      // Closing (not a plain flush) also waits for a lease being taken in the background: one whose row is
      // written but not yet installed would otherwise be installed after the flush, open, its tokens reserved.
      await Promise.all(instances.map((a) => a.closeLeases()));
    },
  };
}
