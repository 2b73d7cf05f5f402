export { createRouter, resolveDeployments } from './config';
export { Deployment, failsOver } from './deployment';
export { type BreakerState, DeploymentHealth } from './health';
export { DeploymentRouter } from './router';
export { BreakerSpec, DeploymentSpec, RoutedFields, RoutingSpec } from './schema';
