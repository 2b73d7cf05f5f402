import type { CallAbort } from '../chat';
import { shuttingDown } from '../chat';
import type { Principal } from '../keys';
import type { ModelCatalogue } from '../models';
import { type EmbeddingCall, type EmbeddingDeps, type EmbeddingOutcome, embedInputs } from './embed';
import { type PreparedEmbeddings, prepareEmbeddings } from './prepare';

/** `POST /v1/embeddings`: checks a request, then embeds its inputs. */
export class EmbeddingService {
  /** The calls under way, for `endAll` at shutdown. */
  private readonly running = new Set<CallAbort>();

  constructor(private readonly deps: EmbeddingDeps & { catalogue: ModelCatalogue }) {}

  /**
   * Validation, the model (an embedding model), the key's access to it, `dimensions`, and the inputs' token
   * counts against the model's and the request's limits: every 4xx that needs no model call.
   */
  prepare(body: unknown, principal: Principal): Promise<PreparedEmbeddings> {
    return prepareEmbeddings({ catalogue: this.deps.catalogue, body, principal });
  }

  async embed(call: EmbeddingCall): Promise<EmbeddingOutcome> {
    this.running.add(call.abort);
    try {
      return await embedInputs({ ...this.deps, prices: this.deps.catalogue.prices }, call);
    } finally {
      this.running.delete(call.abort);
    }
  }

  /** Ends every call under way because the server is stopping (ChatService.endAll's twin): each gets a 503. */
  endAll(): number {
    const calls = [...this.running];
    for (const abort of calls) abort.abort(shuttingDown());
    return calls.length;
  }
}
