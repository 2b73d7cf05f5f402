import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { Logger } from '../../logger';
import { collectionsDue, mergeDue } from './merges';
import { convertCollections } from './postings';
import { queryRows, type Scope } from './sql';

/** Points where tests hold the background work, to observe the server meanwhile. */
export interface SearchMaintenanceHooks {
  /** Awaited before each conversion pass. */
  beforeConversion?: () => Promise<void>;
  /** Awaited before a merge's transaction begins. */
  beforeMerge?: (scope: Scope) => Promise<void>;
  /** Awaited inside a merge's transaction once it has read its inputs, before it rewrites them. */
  duringMerge?: (scope: Scope) => Promise<void>;
}

export interface SearchMaintenanceOptions {
  /** Connections without the request path's statement deadline: a merge or a conversion may run long. */
  db: Db;
  logger: Logger;
  /** How often merges left due (by a stopped instance, a failed merge) are looked for and a failed conversion retried. */
  sweepIntervalMs?: number;
  hooks?: SearchMaintenanceHooks;
}

const keyOf = (scope: Scope) => `${scope.accountId}\u0000${scope.collection}`;

/**
 * Planner statistics of the search tables are refreshed (ANALYZE) once the documents written since
 * the last refresh pass 50 + 10 % of the rows then counted: autovacuum's analyze threshold, which
 * PGlite does not have and a PostgreSQL may run with autovacuum off. Without statistics the planner
 * takes a fresh collection for a few rows and scans all of it instead of using the GIN index (a rare
 * word on 20,000 documents in PGlite: 83 ms instead of under 1). The refresh is a VACUUM too: merges
 * and replaced documents leave dead rows, and without autovacuum their space was never reused (the
 * postings of 100,000 documents took 445-603 MB on disk for 81 MB live after a load).
 */
const ANALYZE_BASE = 50;
const ANALYZE_SHARE = 0.1;
const SEARCH_TABLES = 'search_documents, search_terms, search_blocks';

/**
 * The index's maintenance, off the request path and out of start-up: converting collections written
 * before compressed postings (their searches are exact meanwhile: every match is scored), and the
 * merges of blocks that writes make due (merges.ts). One per server instance, started once it listens
 * and stopped before the database closes; a failure is logged and tried again on the next sweep.
 */
export class SearchMaintenance {
  /** Merges this instance has run (tests, diagnostics). */
  mergesRun = 0;
  /** Statistics refreshes this instance has run (tests, diagnostics). */
  analyzesRun = 0;
  /** Times this instance emptied the GIN indexes' pending lists (tests, diagnostics). */
  pendingCleans = 0;
  /** Index entries (a document's distinct lexemes) written since the pending lists were last emptied. */
  private pendingEntries = 0;
  private cleanDue = false;
  /**
   * Entries written before the pending lists are emptied: about what the default 4 MB list held, so each
   * clean merges as much as an inline flush did (emptying them after every write made each merge rewrite
   * the frequent terms' posting lists for a few entries: bulk loads on PGlite ran 4× slower). Tests set 0.
   */
  cleanEveryEntries = 150_000;
  /** Documents written through this instance since its last refresh of the statistics. */
  private written = 0;
  /** search_documents' rows at that refresh (pg_class.reltuples); −1 before one is known. */
  private analyzedRows = -1;
  private analyzeDue = false;
  /**
   * Time between two refreshes at least (a bulk load passes 10 % growth every few batches; autovacuum
   * waits a minute between its rounds): a refresh due sooner waits. Tests set 0.
   */
  analyzeIntervalMs = 10_000;
  private lastAnalyzeAt = Number.NEGATIVE_INFINITY;
  private analyzeTimer: NodeJS.Timeout | undefined;
  private readonly due = new Map<string, Scope>();
  private merging: Promise<void> | undefined;
  private wakeUp: NodeJS.Immediate | undefined;
  private conversion: Promise<void> | undefined;
  private converted = false;
  private readonly convertedOnce: Promise<void>;
  private markConverted: () => void = () => {};
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(private readonly options: SearchMaintenanceOptions) {
    this.convertedOnce = new Promise((resolve) => {
      this.markConverted = resolve;
    });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.convert();
    void this.checkStatistics();
    this.timer = setInterval(() => void this.sweep(), this.options.sweepIntervalMs ?? 30_000);
    this.timer.unref();
    this.drain();
  }

  /** Resolves once a conversion pass has converted every collection that needed it. */
  whenConverted(): Promise<void> {
    return this.convertedOnce;
  }

  /** A write committed that made a merge of the collection due. */
  wake(scope: Scope): void {
    this.due.set(keyOf(scope), scope);
    this.soon();
  }

  /** Drains after the current I/O: the write's response goes out before the work uses the thread. */
  private soon(): void {
    this.wakeUp ??= setImmediate(() => {
      this.wakeUp = undefined;
      this.drain();
    });
  }

  /** A write committed `documents` documents (new or replacing others) holding `entries` distinct lexemes in all. */
  wrote(documents: number, entries = 0): void {
    this.written += documents;
    this.pendingEntries += entries;
    if (this.pendingEntries >= this.cleanEveryEntries && !this.cleanDue) {
      this.cleanDue = true;
      this.soon();
    }
    if (this.written > ANALYZE_BASE + ANALYZE_SHARE * Math.max(this.analyzedRows, 0)) this.scheduleAnalyze();
  }

  private scheduleAnalyze(): void {
    this.analyzeDue = true;
    this.soon();
  }

  /** Retries a failed conversion, and queues every collection with a merge due, whoever wrote it. */
  async sweep(): Promise<void> {
    this.convert();
    try {
      for (const scope of await collectionsDue(this.options.db)) this.due.set(keyOf(scope), scope);
      this.drain();
    } catch (err) {
      this.options.logger.warn({ err }, 'search merge sweep failed; trying again later');
    }
  }

  /** Resolves when no merge is running or queued (tests). */
  async idle(): Promise<void> {
    while (this.merging || this.wakeUp || this.analyzeTimer) {
      await (this.merging ?? new Promise((resolve) => setTimeout(resolve, this.wakeUp ? 0 : 20)));
    }
  }

  /** Lets the running merge or conversion step finish (it commits or rolls back whole), then starts no other. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    clearImmediate(this.wakeUp);
    clearTimeout(this.analyzeTimer);
    this.analyzeTimer = undefined;
    this.wakeUp = undefined;
    await Promise.all([this.merging, this.conversion]);
  }

  /** Search tables that hold documents but were never analyzed (a database loaded before this instance): refreshed now. */
  private async checkStatistics(): Promise<void> {
    try {
      const [row] = await queryRows<{ n: number; any: boolean }>(
        this.options.db,
        sql`select (select reltuples::float8 from pg_class where relname = 'search_documents' and relkind = 'r') as n,
              exists (select 1 from search_documents) as any`,
      );
      if (!row?.any || row.n >= 0) {
        this.analyzedRows = row?.n ?? -1;
        return;
      }
      this.scheduleAnalyze();
    } catch (err) {
      this.options.logger.warn(
        { err },
        'reading the search statistics failed; the next write refreshes them',
      );
    }
  }

  private convert(): void {
    if (this.converted || this.conversion || this.stopped) return;
    const { db, logger, hooks } = this.options;
    this.conversion = (async () => {
      await hooks?.beforeConversion?.();
      const count = await convertCollections(db, () => this.stopped);
      if (count > 0) logger.info({ collections: count }, 'search postings built');
      if (this.stopped) return;
      this.converted = true;
      this.markConverted();
    })()
      .catch((err: unknown) => {
        logger.error({ err }, 'search postings conversion failed; trying again later (searches stay exact)');
      })
      .finally(() => {
        this.conversion = undefined;
      });
  }

  private drain(): void {
    const analyze = this.analyzeDue && !this.analyzeTimer;
    if (this.merging || this.stopped || (this.due.size === 0 && !analyze && !this.cleanDue)) return;
    this.merging = this.runQueued().finally(() => {
      this.merging = undefined;
      this.drain();
    });
  }

  /**
   * Empties the GIN indexes' pending lists (documents' tsvectors, the vocabulary's trigrams) once writes
   * have put `cleanEveryEntries` entries in them, so that the insert which passes the lists' limit does not
   * merge them inside a write request (a few hundred ms every ~1,300 documents at the default 4 MB;
   * migration 0022 raised the limit to 64 MB, a bound for when this falls behind). A search reads what is
   * pending linearly, so the lists stay about as short as the default limit kept them. Through `search_clean_pending_lists()`, which runs as
   * the tables' owner.
   */
  private async cleanPendingLists(): Promise<void> {
    if (!this.cleanDue || this.stopped) return;
    this.cleanDue = false;
    this.pendingEntries = 0;
    try {
      await this.options.db.execute(sql`select search_clean_pending_lists()`);
      this.pendingCleans++;
    } catch (err) {
      this.options.logger.warn(
        { err },
        "emptying the search indexes' pending lists failed; the next write tries again",
      );
    }
  }

  private async runQueued(): Promise<void> {
    const { db, logger, hooks } = this.options;
    for (const [key, scope] of this.due) {
      if (this.stopped) return;
      this.due.delete(key);
      try {
        await hooks?.beforeMerge?.(scope);
        const hold = hooks?.duringMerge;
        const outcome = await mergeDue(db, scope, hold && (() => hold(scope)));
        if (outcome.kind !== 'merged') continue;
        this.mergesRun++;
        logger.debug({ ...scope, level: outcome.level, gen: outcome.gen }, 'search blocks merged');
      } catch (err) {
        logger.warn({ err, ...scope }, 'search merge failed; the next sweep tries again');
      }
    }
    await this.cleanPendingLists();
    if (this.analyzeDue && !this.analyzeTimer && !this.stopped) {
      const wait = this.lastAnalyzeAt + this.analyzeIntervalMs - Date.now();
      if (wait > 0) {
        this.analyzeTimer = setTimeout(() => {
          this.analyzeTimer = undefined;
          this.drain();
        }, wait);
        this.analyzeTimer.unref();
        return;
      }
      this.analyzeDue = false;
      this.lastAnalyzeAt = Date.now();
      const counted = this.written;
      try {
        await db.execute(sql.raw(`vacuum (analyze) ${SEARCH_TABLES}`));
        const [row] = await queryRows<{ n: number }>(
          db,
          sql`select reltuples::float8 as n from pg_class where relname = 'search_documents' and relkind = 'r'`,
        );
        this.analyzedRows = row?.n ?? -1;
        this.written -= counted;
        this.analyzesRun++;
      } catch (err) {
        logger.warn({ err }, 'refreshing the search statistics failed; the next write tries again');
      }
    }
  }
}
