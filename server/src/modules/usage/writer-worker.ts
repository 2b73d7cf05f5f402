import { workerData } from 'node:worker_threads';
import { openPostgres } from '../../db/postgres';
import { serveRequests } from '../../lib/thread-serve';
import { PgUsageStore } from './store';
import type { WriterOptions, WriterRequest } from './writer-protocol';

/**
 * The usage writer thread (writer-thread.ts): PgUsageStore over connections of its own. Requests may overlap (a
 * prune runs beside the writes); each is answered with its id.
 */
const { url, maxConnections } = workerData as WriterOptions;
const database = openPostgres(url, maxConnections, 'tessera-usage-writer');
const store = new PgUsageStore(database.db);

async function handle(request: WriterRequest): Promise<unknown> {
  switch (request.op) {
    case 'write': {
      // The events that were in a failed write, by position: identity does not survive the copy between threads.
      const suspects = new Set(request.suspects.map((i) => request.events[i]));
      await store.write(request.events, (e) => suspects.has(e));
      return undefined;
    }
    case 'resolveKeys':
      return [...(await store.resolveKeys(request.keyHashes))];
    case 'prune':
      return store.prune({
        events: new Date(request.events),
        minuteRollups: new Date(request.minuteRollups),
      });
    case 'close':
      await database.close();
      return undefined;
  }
}

serveRequests(handle);
