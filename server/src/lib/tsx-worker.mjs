// Development and tests only (lib/worker-thread.ts): a worker thread running the TypeScript sources registers
// tsx's loader, which it does not inherit, then loads the module named by its last argument. The build runs the
// workers' JavaScript directly.
import { register } from 'tsx/esm/api';

register();
await import(process.argv.at(-1));
