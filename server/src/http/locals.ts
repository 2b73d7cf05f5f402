import type { Response } from 'express';
import type { Principal } from '../modules/keys';

/** Typed access to what the middleware chain leaves on `res.locals`. */
export interface RequestLocals {
  requestId: string;
  startedAt: number;
  /** The route as a template (`/v1/models/:id`), set when a route matched. */
  route?: string;
  principal?: Principal;
  /** Filled by handlers for logs and metering. */
  model?: string;
  promptTokens?: number;
  completionTokens?: number;
  errorType?: string;
  errorCode?: string | null;
  errorMessage?: string;
  /** While the route's handler runs; metering waits for `onHandlerDone` so that late token counts are kept. */
  handlerRunning?: boolean;
  onHandlerDone?: () => void;
}

export function locals(res: Response): RequestLocals {
  return res.locals as RequestLocals;
}
