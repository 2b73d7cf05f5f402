// Worker threads do not inherit tsx's loader reliably (vitest, plain node): register it here, then load the
// TypeScript worker. Resolved relative to this file, so it works whatever the working directory.
import { register } from 'tsx/esm/api';

register();
await import('./writer-worker.ts');
