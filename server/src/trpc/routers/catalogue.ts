import { listModels } from '../../modules/models';
import { allowedProcedure, router } from '../trpc';

/** The model catalogue for the dashboard's session (the same list as GET /v1/models, without a key). */
export const modelsRouter = router({
  list: allowedProcedure('read').query(({ ctx }) =>
    listModels({ catalogue: ctx.services.catalogue, ownership: ctx.services.ownership }),
  ),
});
