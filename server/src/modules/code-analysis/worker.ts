import { parentPort } from 'node:worker_threads';
import { analyzeSource } from './analyze';
import { AnalysisTooComplex } from './bounds';
import { analyzeProject } from './project';
import { isProjectJob, type WorkerJob } from './types';
import type { WorkerReply, WorkerRequest } from './worker-protocol';

if (!parentPort) throw new Error('worker.ts must run in a worker thread');
const port = parentPort;

port.on('message', (message: WorkerRequest) => {
  void run(message.id, message.job);
});

async function run(id: number, job: WorkerJob): Promise<void> {
  let reply: WorkerReply;
  try {
    reply = {
      id,
      ok: true,
      result: isProjectJob(job) ? await analyzeProject(job) : await analyzeSource(job),
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    reply = { id, ok: false, message, tooComplex: err instanceof AnalysisTooComplex };
  }
  port.postMessage(reply);
}

port.postMessage({ ready: true });
