import { inCluster, joinClusterMetrics, runPrimary, serverProcesses } from './cluster';
import { type Env, parseEnv } from './env';
import { collectStartupGarbage, releaseWorkersYoungGeneration } from './lib/heap';
import { hasDemoAccount, migrateWithRetry, printDemo, printDemoHint, seedDemoIfEmpty } from './lifecycle';
import { createLogger } from './logger';
import { simulatorNotice } from './modules/providers';
import { startServer } from './server';
import { createServices } from './services';

async function main(): Promise<void> {
  let env: Env;
  try {
    env = parseEnv();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
  const processes = serverProcesses(env);
  if (processes > 1 && !inCluster()) {
    await runPrimary({ env, processes, logger: createLogger(env.LOG_LEVEL) });
    return;
  }
  // Before any worker thread is made (lib/heap.ts).
  releaseWorkersYoungGeneration();
  const services = createServices(env);
  const { logger } = services.ctx;
  if (inCluster()) joinClusterMetrics(services.metrics);
  await migrateWithRetry(services);
  const embedded = !env.DATABASE_URL;
  const demo =
    embedded && env.NODE_ENV !== 'production' && env.SEED_DEMO ? await seedDemoIfEmpty(services) : null;
  // Start-up's garbage goes before the first request does (lib/heap.ts).
  collectStartupGarbage();
  const running = await startServer(services, { port: env.PORT, host: env.HOST });
  logger.info(
    {
      url: running.url,
      metrics: running.metricsUrl ? `${running.metricsUrl}/metrics` : 'off',
      database: embedded ? `embedded PGlite in ${env.DATA_DIR}` : 'postgres',
      limiterStore: env.REDIS_URL ? 'redis' : 'in-process',
    },
    inCluster() ? 'server process listening' : 'tessera listening',
  );
  const notice = simulatorNotice(services.providers, [
    ...services.catalogue.entries,
    ...services.catalogue.embeddingEntries,
  ]);
  if (notice) logger.warn({ upstreams: services.providers.names() }, 'live keys are served by the simulator');
  // In a cluster the primary says where the server runs, once (cluster.ts).
  if (!inCluster()) {
    process.stdout.write(`\n  Tessera is running at ${running.url}\n`);
    if (notice) process.stdout.write(`\n  ${notice}\n`);
    if (demo) printDemo(demo, running.url, logger);
    else if (await hasDemoAccount(services)) printDemoHint(running.url);
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    running
      .close(env.SHUTDOWN_GRACE_MS)
      .then(() => {
        logger.info('shutdown complete');
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`Tessera failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
