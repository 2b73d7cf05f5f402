import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { AggregatorRegistry } from 'prom-client';
import { DEFAULT_METRICS_PORT } from './config';
import type { Env } from './env';
import type { Logger } from './logger';
import { type MetricsListener, startMetricsListener } from './metrics/listener';
import type { Metrics } from './metrics/registry';

/**
 * Several server processes on one port (issue 42: one process used one of the machine's cores): node:cluster's
 * primary forks them and the port is shared, connections handed out in turn. Nothing a request needs lives
 * only in one process once PostgreSQL and Redis hold keys, limits, allowance leases and usage: the processes are
 * instances like those of a fleet, which the cluster, fault and limit tests already hold exact. The primary
 * serves no request: it forks (the first alone, so that the migrations run once), replaces a process that
 * dies, serves the metrics listener with every process's metrics summed, and on SIGTERM or SIGINT lets each
 * process drain its requests (its own graceful shutdown) before it exits.
 */

/** How many server processes: WORKERS, or one per CPU with PostgreSQL and Redis, else one. */
export function serverProcesses(env: Env): number {
  if (typeof env.WORKERS === 'number') return env.WORKERS;
  return env.DATABASE_URL && env.REDIS_URL ? availableParallelism() : 1;
}

/** Whether this process is one of a cluster's server processes. */
export const inCluster = (): boolean => cluster.isWorker;

const METRICS_REQUEST = 'tessera:metrics';
interface MetricsMessage {
  type: typeof METRICS_REQUEST;
  id: number;
  text?: string;
  error?: string;
}

/**
 * In a cluster's process: its registry answers the primary's collection (prom-client's cluster protocol), and
 * `GET /metrics` on the public port (with METRICS_TOKEN) answers with the cluster's sum, asked of the primary.
 */
export function joinClusterMetrics(metrics: Metrics): void {
  // The constructor installs the process's side of the collection.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics.registry]);
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();
  let nextId = 1;
  process.on('message', (message: MetricsMessage) => {
    if (message?.type !== METRICS_REQUEST) return;
    const call = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.text !== undefined) call?.resolve(message.text);
    else call?.reject(new Error(message.error ?? 'the metrics could not be collected'));
  });
  metrics.answerFrom(
    () =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        process.send?.({ type: METRICS_REQUEST, id } satisfies MetricsMessage);
      }),
  );
}

export interface ClusterOptions {
  env: Env;
  processes: number;
  logger: Logger;
}

/** A process that dies this many times in a minute is not forked again: the cluster stops (exit 1). */
const RESTARTS_PER_MINUTE = 5;

/** The primary: forks the server processes and keeps them running until a signal stops them all. */
export async function runPrimary({ env, processes, logger }: ClusterOptions): Promise<void> {
  const aggregator = new AggregatorRegistry();
  let stopping = false;
  const restarts: number[] = [];

  cluster.on('message', (worker: Worker, message: MetricsMessage) => {
    if (message?.type !== METRICS_REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: METRICS_REQUEST, id: message.id, text } satisfies MetricsMessage),
      (err: Error) =>
        worker.send({ type: METRICS_REQUEST, id: message.id, error: err.message } satisfies MetricsMessage),
    );
  });

  // Only the primary listens for metrics: the processes' listeners would share one port and answer in turn.
  const fork = () => cluster.fork({ METRICS_PORT: 'off' });
  const listening = (worker: Worker) =>
    new Promise<string>((resolve, reject) => {
      worker.once('listening', (address) => resolve(`http://${shownHost(address.address)}:${address.port}`));
      worker.once('exit', (code) => reject(new Error(`the first server process exited with code ${code}`)));
    });

  const url = await listening(fork());
  for (let i = 1; i < processes; i++) fork();

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    const now = Date.now();
    restarts.push(now);
    while ((restarts[0] ?? now) < now - 60_000) restarts.shift();
    if (restarts.length > RESTARTS_PER_MINUTE) {
      logger.error({ pid: worker.process.pid, code, signal }, 'server processes keep dying; stopping');
      stop('restarts', 1);
      return;
    }
    logger.warn({ pid: worker.process.pid, code, signal }, 'a server process stopped; starting another');
    fork();
  });

  let metricsListener: MetricsListener | undefined;
  const port =
    env.METRICS_PORT === 'off'
      ? null
      : (env.METRICS_PORT ?? (env.NODE_ENV === 'test' ? 0 : DEFAULT_METRICS_PORT));
  if (port !== null) {
    metricsListener = await startMetricsListener(
      { exposition: () => aggregator.clusterMetrics(), contentType: aggregator.contentType },
      { host: env.METRICS_HOST, port, token: env.METRICS_TOKEN },
    );
  }
  logger.info(
    { url, processes, metrics: metricsListener ? `${metricsListener.url}/metrics` : 'off' },
    'tessera listening',
  );
  process.stdout.write(`\n  Tessera is running at ${url} (${processes} server processes)\n`);

  function stop(signal: string, exitCode = 0): void {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: every server process finishes its requests');
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    const exited = workers.map(
      (w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))),
    );
    for (const w of workers) w.process.kill('SIGTERM');
    // A process's own shutdown is bounded by SHUTDOWN_GRACE_MS; past it and a margin, it is killed.
    const deadline = setTimeout(() => {
      for (const w of workers) if (!w.isDead()) w.process.kill('SIGKILL');
    }, env.SHUTDOWN_GRACE_MS + 5_000);
    Promise.all(exited)
      .then(() => metricsListener?.close())
      .finally(() => {
        clearTimeout(deadline);
        logger.info('shutdown complete');
        process.exit(exitCode);
      });
  }
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

function shownHost(address: string | null | undefined): string {
  return !address || address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address;
}
