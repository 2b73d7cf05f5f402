export { configureCollection, deleteCollection, getCollection } from './collections';
export { deleteDocument, getDocument, listDocuments } from './documents';
export { createSearchGate } from './gate';
export type { SearchLimits } from './limits';
export { SearchMaintenance, type SearchMaintenanceHooks } from './maintenance';
export { MemoryIndexes } from './memory';
export { searchDocuments } from './search';
export { parseCollectionName, parseDocumentId, parseIndexRequest, parseOrThrow } from './validate';
export { indexDocuments } from './write';
