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
export { isTerminalResponseEvent, responsesUsageOf } from './responses-relay';
export type {
  ChatProvider,
  EmbeddingCall,
  EmbeddingProvider,
  ProviderCall,
  ProviderChunk,
  ProviderCompletion,
  ProviderEmbeddings,
  RelayedEvent,
  RelayedResponse,
  ResponsesCall,
  ResponsesProvider,
} from './types';
