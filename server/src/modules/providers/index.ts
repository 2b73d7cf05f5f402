export { isRetryable } from './errors';
export { simulatorNotice } from './notice';
export {
  type ProviderConfig,
  ProviderRegistry,
  type ProvidersOptions,
  SIMULATOR_FALLBACK_OWNER,
  SIMULATOR_OWNER,
  upstreamProvider,
} from './registry';
export type {
  ChatProvider,
  EmbeddingCall,
  EmbeddingProvider,
  ProviderCall,
  ProviderChunk,
  ProviderCompletion,
  ProviderEmbeddings,
} from './types';
