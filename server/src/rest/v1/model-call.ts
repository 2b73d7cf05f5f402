import type { Response } from 'express';
import { ServiceError } from '../../errors';
import { CallAbortController } from '../../lib/call-abort';

/** The provider that answered a model call: `simulator`, the configured upstream's name, or a deployment's. */
export const PROVIDER_HEADER = 'x-tessera-provider';

/**
 * Why a call was aborted when its client left: a known error, so that it is neither logged as a failure nor
 * mapped to a 500 (the response can no longer be sent; the request is metered as 499).
 */
export function clientClosed(): ServiceError {
  return new ServiceError(
    'invalid_request',
    'The client closed the connection before the response was complete.',
    { code: 'client_closed' },
  );
}

/**
 * The abort of one model call (chat, responses, embeddings): the client leaving before the response is complete
 * aborts it at once, or before it starts if a long prompt is still being counted.
 */
export function abortOnClientClose(res: Response): CallAbortController {
  const abort = new CallAbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort(clientClosed());
  });
  return abort;
}
