export type { EmbeddingCall, EmbeddingDeps, EmbeddingOutcome } from './embed';
export type { PreparedEmbeddings } from './prepare';
export { EmbeddingService } from './service';
