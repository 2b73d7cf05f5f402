import type { ChatCompletion, Usage } from '@tessera/shared';
import { ServiceError } from '../../errors';
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../logger';
import type { Principal } from '../../principal';
import type { ChatSink, MeteredUsage, PreparedChat } from '../chat';
import type { PriceTable } from '../models';
import { type CachedAnswer, type CachedChoice, parseAnswer, StreamAssembly } from './answer';
import { type CacheIdentity, cacheKey } from './key';
import type { CacheStore } from './store';

/** The request header that adjusts the cache for one request, and the response header that reports it. */
export const CACHE_HEADER = 'x-tessera-cache';

/**
 * What a request may ask of a key's cache with `x-tessera-cache`: `no-cache` (answer from the model, and store
 * that answer for the next requests) or `no-store` (neither read nor write the cache). Absent: both.
 */
export const CACHE_DIRECTIVES = ['no-cache', 'no-store'] as const;

/** A failure to read or write the store is logged at most once in this long (it is a miss meanwhile). */
const ERROR_LOG_INTERVAL_MS = 60_000;

export interface ResponseCacheDeps {
  store: CacheStore;
  clock: Clock;
  logger: Logger;
  prices: PriceTable;
}

/**
 * The exact-match response cache of chat answers (README.md): opted into per key with a time to live, keyed by
 * the organisation, what answers the model and the normalised request. Only whole, successful answers are
 * stored; a hit is answered without any model call, allowance or budget.
 */
export class ResponseCache {
  private lastErrorLog = 0;
  /** For /metrics: lookups answered and not, and failures of the store (Redis's connection or commands). */
  readonly counts = { hits: 0, misses: 0, storeErrors: 0 };

  constructor(private readonly deps: ResponseCacheDeps) {}

  get storeKind(): CacheStore['kind'] {
    return this.deps.store.kind;
  }

  /** Whether the store serves reads and writes now (Redis: connected). */
  ready(): boolean {
    return this.deps.store.ready();
  }

  /** A store failure: a miss or an answer not stored, logged now and then. */
  storeFailed(err: unknown): void {
    this.counts.storeErrors += 1;
    const now = Date.now();
    if (now - this.lastErrorLog < ERROR_LOG_INTERVAL_MS) return;
    this.lastErrorLog = now;
    this.deps.logger.warn({ err }, 'the response cache store failed; requests are answered by the model');
  }

  /**
   * The cache's part in one request, or undefined when it has none: the key has no cache, or the request said
   * `x-tessera-cache: no-store`. An unknown directive is a 400 naming the header.
   */
  begin(
    principal: Principal,
    prepared: PreparedChat,
    identity: Omit<CacheIdentity, 'mode'>,
    directive: string | undefined,
  ): CacheTurn | undefined {
    const ttlSeconds = principal.access?.cacheTtlSeconds;
    const asked = directive?.trim().toLowerCase();
    if (asked !== undefined && asked !== '' && !(CACHE_DIRECTIVES as readonly string[]).includes(asked))
      throw new ServiceError(
        'invalid_request',
        `The ${CACHE_HEADER} header must be one of ${CACHE_DIRECTIVES.join(', ')}; got '${directive?.slice(0, 64)}'.`,
        { param: CACHE_HEADER, code: 'invalid_value' },
      );
    if (!ttlSeconds || asked === 'no-store') return undefined;
    const key = `${principal.accountId}:${cacheKey(principal.accountId, { ...identity, mode: principal.mode }, prepared)}`;
    return new CacheTurn(this.deps, key, ttlSeconds * 1000, asked !== 'no-cache', prepared, this.counts);
  }
}

/** The cache's part in one request: a lookup, then, on a miss, the answer stored once it is whole. */
export class CacheTurn {
  private assembly: StreamAssembly | undefined;
  /** The stream's `[DONE]`, held until its answer is stored (so that the next request finds it). */
  private heldDone: (() => void) | undefined;
  private streamFailed = false;
  /** The stream reached its regular end (`[DONE]`): not cut by the client, the timeout or the server. */
  private streamCompleted = false;

  constructor(
    private readonly deps: ResponseCacheDeps,
    readonly key: string,
    private readonly ttlMs: number,
    /** False with `no-cache`: the request goes to the model, and its answer is stored. */
    private readonly read: boolean,
    private readonly prepared: PreparedChat,
    private readonly counts: { hits: number; misses: number },
  ) {}

  /** The cached answer, if one younger than this key's time to live is stored. */
  async lookup(): Promise<CachedAnswer | undefined> {
    if (!this.read) {
      this.counts.misses += 1;
      return undefined;
    }
    const text = await this.deps.store.get(this.key).catch(() => undefined);
    const answer = text === undefined ? undefined : parseAnswer(text);
    if (!answer || this.deps.clock.now() - answer.at >= this.ttlMs) {
      this.counts.misses += 1;
      return undefined;
    }
    this.counts.hits += 1;
    return answer;
  }

  /** Stores a non-streamed answer (whole by construction: a completion either came back or failed). */
  async storeCompletion(completion: ChatCompletion, provider: string): Promise<void> {
    await this.store(
      completion.model,
      provider,
      completion.system_fingerprint,
      completion.choices,
      completion.usage,
    );
  }

  /**
   * Wraps a stream's sink: the chunks are put together as they pass, and `[DONE]` waits until the answer is
   * stored when the stream carried its usage (otherwise it is stored once the call's usage is known, `settle`).
   * A stream that ends in an error event, or without `[DONE]` (cut), is not stored.
   */
  capture(sink: ChatSink, provider: () => string | undefined): ChatSink {
    const assembly = new StreamAssembly();
    this.assembly = assembly;
    const turn = this;
    return {
      open: () => sink.open(),
      send(json: string) {
        assembly.add(json);
        sink.send(json);
      },
      ready: () => sink.ready(),
      comment: (text: string) => sink.comment(text),
      error(err: unknown) {
        turn.streamFailed = true;
        sink.error(err);
      },
      done() {
        turn.streamCompleted = true;
        if (turn.streamFailed || !assembly.usage) {
          sink.done();
          return;
        }
        turn.heldDone = () => sink.done();
        void turn.storeStream(assembly.usage, provider() ?? '').finally(() => turn.releaseDone());
      },
      end: () => sink.end(),
    };
  }

  /**
   * After a captured stream's call returned: stores the answer with the call's usage if it finished whole and
   * carried no usage chunk (the client did not ask for `include_usage`).
   */
  async settle(ok: boolean, usage: MeteredUsage, provider: string): Promise<void> {
    const assembly = this.assembly;
    if (!ok || !assembly || !this.streamCompleted || assembly.usage || this.streamFailed || this.heldDone)
      return;
    await this.storeStream(
      {
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        total_tokens: usage.promptTokens + usage.completionTokens,
      },
      provider,
    );
  }

  private releaseDone(): void {
    const done = this.heldDone;
    this.heldDone = undefined;
    done?.();
  }

  private async storeStream(usage: Usage, provider: string): Promise<void> {
    const assembly = this.assembly;
    const choices = assembly?.finished();
    if (!assembly || !choices || this.streamFailed || !this.streamCompleted) return;
    await this.store(assembly.model, provider, assembly.fingerprint, choices, usage);
  }

  private async store(
    model: string,
    provider: string,
    fingerprint: string | null | undefined,
    choices: CachedChoice[],
    usage: Usage,
  ): Promise<void> {
    // Only whole answers: every choice the request asked for, each with its finish reason.
    const expected = this.prepared.request.n ?? 1;
    if (choices.length !== expected || choices.some((c) => !c.finish_reason)) return;
    const at = this.deps.clock.now();
    const answer: CachedAnswer = {
      v: 1,
      at,
      model,
      provider,
      ...(fingerprint !== undefined && { fingerprint }),
      choices,
      usage,
      costMicros: this.deps.prices.costMicros(model, usage.prompt_tokens, usage.completion_tokens, at),
    };
    await this.deps.store.set(this.key, JSON.stringify(answer), this.ttlMs).catch(() => {});
  }
}
