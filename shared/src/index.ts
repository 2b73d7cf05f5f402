export * from './accounts';
export * from './code-analysis';
export * from './chat';
export * from './errors';
export * from './keys';
export * from './models';
export * from './plans';
export * from './search';
