export * from './accounts';
export * from './api-keys';
export * from './sessions';
export * from './search-collections';
export * from './search-documents';
export * from './search-terms';
export * from './usage-events';
export * from './usage-rollups';
