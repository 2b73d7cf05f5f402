import { z } from 'zod';

/** Text search configurations built into Postgres that a collection may use. */
export const SearchLanguage = z.enum([
  'english',
  'simple',
  'danish',
  'dutch',
  'finnish',
  'french',
  'german',
  'hungarian',
  'italian',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'spanish',
  'swedish',
  'turkish',
]);
export type SearchLanguage = z.infer<typeof SearchLanguage>;

/** Postgres text cannot hold NUL; rejecting it here keeps it out of every column. */
const noNul = (s: string) => !s.includes('\u0000');
/** Lone surrogates cannot be stored as UTF-8; they become U+FFFD (String#toWellFormed is ES2024). */
export const wellFormed = (s: string) =>
  s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
const cleanText = z
  .string()
  .refine(noNul, { error: 'must not contain NUL characters' })
  .transform(wellFormed);

export const CollectionName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, {
  error: 'must be 1-64 characters: letters, digits, `_`, `.`, `-`, starting with a letter or digit',
});
export const DocumentId = z
  .string()
  .min(1)
  .max(256)
  .refine((s) => ![...s].some((ch) => ch === '/' || ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f), {
    error: 'must not contain control characters or `/`',
  })
  .transform(wellFormed);

export const DocumentMetadata = z.record(z.string(), z.unknown());
export type DocumentMetadata = z.infer<typeof DocumentMetadata>;

export const DocumentInput = z.strictObject({
  id: DocumentId.optional(),
  title: cleanText.optional(),
  /** Optional when the title is not blank: a title alone is a document. */
  text: cleanText.optional(),
  metadata: DocumentMetadata.optional(),
});
export type DocumentInput = z.infer<typeof DocumentInput>;

/** `POST /api/documents`: a batch (`documents`) or one document at the top level. */
export const IndexBatchRequest = z.strictObject({
  collection: CollectionName.optional(),
  documents: z.array(z.unknown()),
});
export type IndexBatchRequest = z.infer<typeof IndexBatchRequest>;

export const DocumentObject = z.object({
  object: z.literal('document'),
  id: z.string(),
  collection: z.string(),
  title: z.string(),
  text: z.string(),
  metadata: DocumentMetadata,
  /** Unix seconds when this version of the document was indexed. */
  indexed_at: z.number().int(),
});
export type DocumentObject = z.infer<typeof DocumentObject>;

export const DocumentList = z.object({
  object: z.literal('list'),
  data: z.array(DocumentObject),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});
export type DocumentList = z.infer<typeof DocumentList>;

export const IndexResult = z.object({
  object: z.literal('list'),
  collection: z.string(),
  data: z.array(z.object({ object: z.literal('document'), id: z.string(), replaced: z.boolean() })),
});
export type IndexResult = z.infer<typeof IndexResult>;

export const CollectionObject = z.object({
  object: z.literal('collection'),
  name: z.string(),
  language: SearchLanguage,
  document_count: z.number().int(),
});
export type CollectionObject = z.infer<typeof CollectionObject>;

export const CollectionConfig = z.strictObject({ language: SearchLanguage });
export type CollectionConfig = z.infer<typeof CollectionConfig>;

export const DeletedObject = z.object({ id: z.string(), object: z.string(), deleted: z.literal(true) });
export type DeletedObject = z.infer<typeof DeletedObject>;

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const RangeValue = z.union([z.number(), z.string()]);
/** A condition on one metadata field: a scalar means equality. */
export const FilterCondition = z.union([
  Scalar,
  z
    .strictObject({
      eq: Scalar.optional(),
      ne: Scalar.optional(),
      in: z.array(Scalar).min(1).max(100).optional(),
      gt: RangeValue.optional(),
      gte: RangeValue.optional(),
      lt: RangeValue.optional(),
      lte: RangeValue.optional(),
    })
    .refine((o) => Object.keys(o).length > 0, { error: 'needs at least one operator' }),
]);
export type FilterCondition = z.infer<typeof FilterCondition>;

/** Field (dotted path into metadata) → condition; all conditions must hold. */
export const SearchFilter = z
  .record(z.string().min(1).max(200), FilterCondition)
  .refine((o) => Object.keys(o).length <= 20, { error: 'at most 20 fields' });
export type SearchFilter = z.infer<typeof SearchFilter>;

export const SearchRequest = z.strictObject({
  /** Words, a question or a pasted paragraph; the search box's syntax: "phrase", +required, -excluded, OR. */
  query: cleanText.refine((s) => s.length <= 10_000, { error: 'must be at most 10000 characters' }),
  collection: CollectionName.default('default'),
  limit: z.number().int().min(1).max(100).default(10),
  cursor: z.string().max(2000).optional(),
  offset: z.number().int().min(0).max(10_000).optional(),
  filter: SearchFilter.optional(),
  mode: z.enum(['keyword', 'fuzzy']).default('keyword'),
  /** `or` (default): a document matches with any word, more and rarer words rank higher; `and`: every word is required. */
  operator: z.enum(['or', 'and']).default('or'),
});
export type SearchRequest = z.infer<typeof SearchRequest>;

export const SearchHit = z.object({
  id: z.string(),
  collection: z.string(),
  title: z.string(),
  /** HTML: the best passage, escaped, with matched terms in `<mark>…</mark>`. */
  snippet: z.string(),
  score: z.number(),
  metadata: DocumentMetadata,
});
export type SearchHit = z.infer<typeof SearchHit>;

export const SearchResponse = z.object({
  object: z.literal('list'),
  data: z.array(SearchHit),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
  /**
   * True when ranking every match exactly would have cost more than the search's budget and the page was
   * taken from a bounded set of the most promising candidates instead: every hit matches the query and has
   * its exact score, but a match outside that set may be missing. Narrow the query (rarer words, a filter)
   * for an exact page.
   */
  approximate: z
    .boolean()
    .describe(
      'True when ranking every match exactly would have cost more than the budget and the page comes from a bounded set of the most promising candidates: every hit matches and has its exact score, but a match outside that set may be missing.',
    ),
});
export type SearchResponse = z.infer<typeof SearchResponse>;
