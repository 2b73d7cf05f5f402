export { isRetryable } from './errors';
export { simulatorNotice } from './notice';
export {
  type ProviderConfig,
  ProviderRegistry,
  type ProvidersOptions,
  SIMULATOR_FALLBACK_OWNER,
  SIMULATOR_OWNER,
} from './registry';
export type { ChatProvider, ProviderCall, ProviderChunk, ProviderCompletion } from './types';
