export type { CachedAnswer } from './answer';
export { asChunks, asCompletion } from './answer';
export { type CacheIdentity, cacheKey, canonicalJson } from './key';
export { CACHE_DIRECTIVES, CACHE_HEADER, CacheTurn, ResponseCache } from './service';
export { type CacheStore, MAX_ENTRY_CHARS, MemoryCacheStore, RedisCacheStore } from './store';
