import type { Clock } from '../../lib/clock';
import type { Logger } from '../../logger';
import type { ModelCatalogue } from '../models';
import type { UnitLimiter } from './limits';
import { DeploymentRouter, type ResolvedDeployment } from './router';

/** The providers a deployment can name: `openai` (any OpenAI-compatible server) and `anthropic`. */
const KINDS = ['openai', 'anthropic'] as const;

/**
 * The catalogue's deployments made ready to serve: each one's provider known, its key read from the variable it
 * names (`keys`: the environment's `*_API_KEY` variables, env.ts), its name unique within its model. Everything
 * wrong is said at once, naming the model and the deployment, and start-up stops: a deployment that cannot
 * answer is better refused before the port opens than found out on live traffic. No key ever appears in the
 * message, only the variable's name.
 */
export function resolveDeployments(
  catalogue: ModelCatalogue,
  keys: Readonly<Record<string, string>>,
): { entry: ModelCatalogue['entries'][number]; deployments: ResolvedDeployment[] }[] {
  const issues: string[] = [];
  const routed = [];
  for (const entry of catalogue.entries) {
    if (!entry.deployments) continue;
    const names = new Set<string>();
    const deployments: ResolvedDeployment[] = [];
    for (const [i, d] of entry.deployments.entries()) {
      const where = `model '${entry.id}' deployment ${i}${d.name ? ` ('${d.name}')` : ''}`;
      const kind = d.provider ?? entry.provider;
      if (!(KINDS as readonly string[]).includes(kind)) {
        issues.push(
          `${where}: unknown provider '${kind}' (a deployment is served by ${KINDS.join(' or ')}; give it a provider)`,
        );
      }
      const name = d.name ?? `${kind}@${new URL(d.base_url).host}`;
      if (names.has(name)) {
        issues.push(
          `${where}: the name '${name}' is already another deployment's of this model (give each a distinct name)`,
        );
      }
      names.add(name);
      let apiKey: string | undefined;
      if (d.api_key_env !== undefined) {
        apiKey = keys[d.api_key_env];
        if (!apiKey) {
          issues.push(
            `${where}: its key variable ${d.api_key_env} is not set (set it, or say keyless: true for a server that takes no key)`,
          );
        }
      }
      deployments.push({
        name,
        kind: kind as ResolvedDeployment['kind'],
        upstreamModel: d.upstream_model ?? entry.upstream_model,
        baseUrl: d.base_url,
        apiKey,
        weight: d.weight,
        rpm: d.rpm,
        tpm: d.tpm,
        responsesApi: d.responses_api === true,
      });
      if (d.responses_api && kind !== 'openai') {
        issues.push(
          `${where}: responses_api is for OpenAI-compatible upstreams (provider 'openai'); '${kind}' has no Responses API`,
        );
      }
    }
    if (entry.responses_api !== undefined) {
      issues.push(
        `model '${entry.id}': responses_api goes on each deployment of a routed model, not on the model`,
      );
    }
    if (entry.routing?.strategy === 'weighted' && deployments.every((d) => d.weight === 0)) {
      issues.push(`model '${entry.id}': strategy 'weighted' needs a deployment of weight above 0`);
    }
    routed.push({ entry, deployments });
  }
  if (issues.length > 0) throw new Error(`Invalid model routing: ${issues.join('; ')}`);
  return routed;
}

/** The router of the catalogue's routed models; throws (stopping start-up) on bad configuration. */
export function createRouter(
  catalogue: ModelCatalogue,
  keys: Readonly<Record<string, string>>,
  logger: Logger,
  limiter: UnitLimiter,
  clock: Clock,
): DeploymentRouter {
  return new DeploymentRouter(resolveDeployments(catalogue, keys), logger, limiter, clock);
}
