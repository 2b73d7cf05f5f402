export { BUDGET_ALERT_EVENT, type RaisedAlert } from './alerts';
export { formatMoney } from './errors';
export { SpendGuard, type SpendGuardOptions } from './guard';
export { listBudgetAlerts } from './list-alerts';
export { listSpendBudgets, type SpendBudgetView, setSpendBudget } from './manage';
export type { SpendHold, SpendReserver } from './types';
