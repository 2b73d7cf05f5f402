export { createRouter, resolveDeployments } from './config';
export { Deployment, failsOver } from './deployment';
export { type BreakerState, DeploymentHealth } from './health';
export {
  DeploymentRouter,
  type DeploymentState,
  type RoutingSync,
  type SharedRoutingEvent,
} from './router';
export { BreakerSpec, DeploymentSpec, RoutedFields, RoutingSpec } from './schema';
export { RedisRoutingSync } from './sync';
