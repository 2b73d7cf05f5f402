export { HISTOGRAM_SIZE, LATENCY_BOUNDS_MS, quantile } from './histogram';
export type { UsageRecorderOptions } from './recorder';
export { UsageRecorder } from './recorder';
export { GRANULARITY_MS, type Granularity, statusClassOf } from './rollup';
export { PgUsageStore } from './store';
export {
  ABORTED_STATUS,
  type KeyOwner,
  type UnresolvedUsageEvent,
  type UsageEvent,
  type UsageMetricsSink,
  type UsageStore,
} from './types';
export { ThreadedUsageStore, UsageWriterError } from './writer-thread';
