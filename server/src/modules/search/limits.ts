/** Per-request indexing limits, from the environment (SEARCH_MAX_*). */
export interface SearchLimits {
  maxBatchDocuments: number;
  /** UTF-8 bytes of title + text + metadata JSON of one document. */
  maxDocumentBytes: number;
}
