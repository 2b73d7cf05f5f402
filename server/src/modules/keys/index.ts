export { allowsModel, requireModel, requireScope } from './access';
export { createKey } from './create';
export { generateKey, hashKey, maskPresentedKey, parseKey } from './generate';
export { LastUsedTracker } from './last-used';
export { listKeys } from './list';
export { isAccountKey } from './owned';
export type { KeyAccess, Principal } from './principal';
export { revokeKey } from './revoke';
export { ApiKeyVerifier } from './verify';
