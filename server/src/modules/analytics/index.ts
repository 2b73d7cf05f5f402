export { accountAllowance } from './allowance';
export {
  DEPLOYMENT_ROWS_MAX,
  type DeploymentUsage,
  type DeploymentUsageList,
  usageByDeployment,
} from './deployments';
export { type EndpointUsage, usageByEndpoint } from './endpoints';
export { type ErrorGroup, type ErrorGroups, errorGroups, GROUPED_ERRORS_MAX } from './error-groups';
export { type RecentError, type RecentErrorsPage, recentErrors } from './errors';
export type { UsageScope } from './filter';
export { MAX_PAGE } from './filter';
export { createAnalyticsGate } from './gate';
export { type PeriodInput, type PeriodPreset, type ResolvedPeriod, resolvePeriod } from './period';
export { type UsageChange, type UsageFigures, type UsageSummary, usageSummary } from './summary';
export { type UsagePoint, type UsageSeries, usageTimeseries } from './timeseries';
