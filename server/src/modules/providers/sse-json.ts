import type { SseEvent } from '@tessera/shared';

/** An event's JSON; a malformed one is the upstream's failure. */
export function parseEventJson<T>(event: SseEvent, onError: (message: string) => Error): T {
  try {
    return JSON.parse(event.data) as T;
  } catch {
    throw onError('a stream event was not valid JSON');
  }
}
