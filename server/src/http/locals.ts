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
  /** The provider that answered (or last failed) a model call, as `x-tessera-provider` says. */
  provider?: string;
  promptTokens?: number;
  completionTokens?: number;
  /** The response cache's part in a chat call (modules/cache): `hit` or `miss`; unset when it was off. */
  cache?: 'hit' | 'miss';
  /** A hit's saving: what the cached answer cost when the model made it, in micro-units. */
  savedMicros?: number | null;
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

/** What a request consumed, for its usage record (chat's model and tokens). */
export interface RecordedUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
}

/** Why a request failed, for its usage record and access log: OpenAI's error `type`, `code` and message. */
export interface RecordedError {
  type: string;
  code: string | null;
  message: string;
}

/**
 * The one way every transport fills the request's usage record (metering.ts writes it when the request is
 * over): what it consumed, and why it failed. `first` keeps an error already recorded (the first cause wins).
 */
export function recordUsage(res: Response, usage: RecordedUsage): void {
  const l = locals(res);
  l.model = usage.model;
  l.promptTokens = usage.promptTokens;
  l.completionTokens = usage.completionTokens;
}

export function recordError(res: Response, error: RecordedError, options: { first?: boolean } = {}): void {
  const l = locals(res);
  if (options.first && l.errorType !== undefined) return;
  l.errorType = error.type;
  l.errorCode = error.code;
  l.errorMessage = error.message;
}
