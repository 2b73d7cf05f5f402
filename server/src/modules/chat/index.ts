export type { RetryPolicy } from './attempts';
export { CallDeadline } from './deadline';
export type { CallAbort, ChatCall, ChatDeps } from './deps';
export type { ChatOutcome, MeteredUsage } from './meter';
export type { PreparedChat } from './prepare';
export { ChatService, shuttingDown } from './service';
export type { ChatSink } from './stream';
