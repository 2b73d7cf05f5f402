export type { PreparedResponse } from './service';
export { ResponsesService } from './service';
export type { ResponseEventSink, StreamFailure } from './stream';
