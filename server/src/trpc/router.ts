import { auditRouter } from './routers/audit';
import { authRouter } from './routers/auth';
import { budgetsRouter, webhooksRouter } from './routers/budgets';
import { modelsRouter } from './routers/catalogue';
import { demoRouter } from './routers/demo';
import { keysRouter } from './routers/keys';
import { planRouter } from './routers/plan';
import { teamsRouter } from './routers/teams';
import { router } from './trpc';

export const appRouter = router({
  audit: auditRouter,
  auth: authRouter,
  budgets: budgetsRouter,
  demo: demoRouter,
  keys: keysRouter,
  models: modelsRouter,
  plan: planRouter,
  teams: teamsRouter,
  webhooks: webhooksRouter,
});

/** The router's type: all the dashboard imports from the server. */
export type AppRouter = typeof appRouter;
