import { createHash } from 'node:crypto';
import type { PreparedChat } from '../chat';

/**
 * Request fields that do not change the answer: how it is delivered (`stream`, `stream_options`) and who asked
 * (`user`). A streamed and a non-streamed request for the same answer share an entry; either can replay it.
 */
const DELIVERY_FIELDS = new Set(['stream', 'stream_options', 'user']);

/**
 * What answers a request, beside the request itself: the key's mode (test keys are answered by the simulator),
 * the catalogue entry and the provider serving it for that mode, with the model's name there. A catalogue change
 * that points the model at another upstream, or configures its provider, starts from an empty cache.
 */
export interface CacheIdentity {
  mode: 'live' | 'test';
  model: string;
  provider: string;
  upstreamModel: string;
}

/**
 * The cache key of a chat request: SHA-256 (hex) of the organisation, what answers the request and the
 * normalised request (object keys sorted, the delivery fields dropped, the output cap and the deprecated
 * functions' form it is answered in). Every sampling field is kept: an exact cache is what the key opted into.
 */
export function cacheKey(accountId: string, identity: CacheIdentity, prepared: PreparedChat): string {
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify([accountId, identity.mode, identity.model, identity.provider, identity.upstreamModel]),
  );
  hash.update('\n');
  hash.update(JSON.stringify([prepared.maxTokens, prepared.functions]));
  hash.update('\n');
  hash.update(canonicalJson(prepared.request, true));
  return hash.digest('hex');
}

/** JSON with every object's keys in order; at the top level, the delivery fields left out. */
export function canonicalJson(value: unknown, top = false): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined || (top && DELIVERY_FIELDS.has(key))) continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}
