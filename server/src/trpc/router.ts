import { authRouter } from './routers/auth';
import { keysRouter } from './routers/keys';
import { router } from './trpc';

export const appRouter = router({
  auth: authRouter,
  keys: keysRouter,
});

/** The router's type: all the dashboard imports from the server. */
export type AppRouter = typeof appRouter;
