export * from './accounts';
export * from './api-keys';
export * from './sessions';
