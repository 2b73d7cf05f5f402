export {
  type AttemptTarget,
  type RetryPolicy,
  responsesOf,
  speaksResponses,
  withRetries,
} from './attempts';
export { CallDeadline } from './deadline';
export { attemptOptions, type CallAbort, type ChatCall, type ChatDeps } from './deps';
export { type ChatOutcome, type MeteredUsage, type UsageMeter, withAllowance } from './meter';
export type { PreparedChat } from './prepare';
export { ChatService, shuttingDown } from './service';
export type { ChatSink } from './stream';
export { pumpStream, type StreamPass, type StreamTransport } from './stream-loop';
