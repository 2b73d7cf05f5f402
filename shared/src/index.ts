export * from './accounts';
export * from './chat';
export * from './code-analysis';
export * from './errors';
export * from './keys';
export * from './models';
export * from './plans';
export * from './search';
