import { z } from 'zod';

/**
 * The catalogue's routing fields (modules/models/catalogue.ts reads them as part of a chat model's entry). This
 * file imports nothing of the catalogue's, so the catalogue can import it.
 */

/** An http:// or https:// URL, the only kind an upstream is reached at. */
const httpUrl = z.string().refine((v) => /^https?:$/.test(URL.parse(v)?.protocol ?? ''), {
  error: 'must be an http:// or https:// URL',
});

/**
 * The name of the environment variable holding a deployment's key. Only variables ending in `_API_KEY` are read
 * for it (env.ts collects them), so a deployment can never be pointed at an unrelated secret such as
 * `DATABASE_URL` and have it sent to an upstream.
 */
const keyVariable = z.string().regex(/^[A-Z][A-Z0-9_]*_API_KEY$/, {
  error: 'must name an environment variable ending in _API_KEY (e.g. AZURE_EAST_API_KEY)',
});

/** One place a model is served: an upstream, its model name there, its key and its share of the traffic. */
export const DeploymentSpec = z
  .object({
    /**
     * What `x-tessera-provider`, usage and logs call it: letters, digits and `._:@-`. Default `<provider>@<host>`
     * (which must then be unique within the model).
     */
    name: z
      .string()
      .regex(/^[A-Za-z0-9._:@-]{1,64}$/, { error: 'must be 1 to 64 letters, digits or ._:@-' })
      .optional(),
    /** `openai` (any OpenAI-compatible server) or `anthropic`; default: the model's `provider`. */
    provider: z.string().min(1).optional(),
    /** The model's name at this upstream; default: the model's `upstream_model`. */
    upstream_model: z.string().min(1).optional(),
    base_url: httpUrl,
    /** The environment variable holding the key; the key itself is never written in the catalogue. */
    api_key_env: keyVariable.optional(),
    /** Refused with a message of its own: a key written here would end up in backups and reviews. */
    api_key: z
      .never({
        error:
          'never write a key in the catalogue: put it in an environment variable ending in _API_KEY and name that in api_key_env',
      })
      .optional(),
    /** A server that takes no key (a local vLLM or Ollama): says so, rather than a key being forgotten. */
    keyless: z.literal(true).optional(),
    /** Share of the traffic with `strategy: "weighted"`; 0 = a backup, used only when the others fail. */
    weight: z.number().min(0).default(1),
    /** This deployment's own requests per minute (its upstream's limit), counted by this process. */
    rpm: z.number().int().positive().optional(),
    /** This deployment's own tokens per minute (prompt + completion cap at the call, settled to the usage). */
    tpm: z.number().int().positive().optional(),
    /**
     * The upstream speaks OpenAI's Responses API itself (`POST /responses`): `POST /v1/responses` calls are relayed
     * to it as they came (when every deployment of the model says so) rather than translated to chat completions.
     */
    responses_api: z.boolean().optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    if (d.api_key_env !== undefined && d.keyless) {
      ctx.addIssue({ code: 'custom', message: 'give either api_key_env or keyless: true, not both' });
    }
    if (d.api_key_env === undefined && !d.keyless) {
      ctx.addIssue({
        code: 'custom',
        message:
          'a deployment needs its key: api_key_env naming the environment variable that holds it (or keyless: true for a server that takes none)',
      });
    }
  });
export type DeploymentSpec = z.infer<typeof DeploymentSpec>;

/** The circuit breaker of each deployment of a model (health.ts). */
export const BreakerSpec = z
  .object({
    /** Consecutive failures that open it. */
    failures: z.number().int().positive().default(5),
    /** Or a share of failed calls over the window, once the window holds `min_requests` calls. */
    error_rate: z.number().gt(0).max(1).default(0.5),
    min_requests: z.number().int().positive().default(20),
    window_ms: z.number().int().positive().default(60_000),
    /** How long it stays open before one call probes the deployment (half-open). */
    cooldown_ms: z.number().int().positive().default(30_000),
  })
  .strict();
export type BreakerSpec = z.infer<typeof BreakerSpec>;

/** How a model's deployments share its calls. */
export const RoutingSpec = z
  .object({
    /**
     * `ordered`: the first healthy deployment in the list; `weighted`: spread by weight (smooth weighted
     * round-robin: exact shares, no randomness); `latency`: the healthy deployment with the lowest recent
     * latency (untried ones first).
     */
    strategy: z.enum(['ordered', 'weighted', 'latency']).default('ordered'),
    /**
     * How long one deployment may take to answer (a stream: its first chunk) before the call moves on to the
     * next; absent: the whole model timeout (MODEL_TIMEOUT_MS), which then leaves no time to move on.
     */
    attempt_timeout_ms: z.number().int().positive().optional(),
    breaker: BreakerSpec.default(BreakerSpec.parse({})),
  })
  .strict();
export type RoutingSpec = z.infer<typeof RoutingSpec>;

/** A chat model's routing fields: its deployments (at least one) and how they are used. */
export const RoutedFields = {
  deployments: z.array(DeploymentSpec).min(1).optional(),
  routing: RoutingSpec.optional(),
};
