import {
  CollectionName,
  DocumentId,
  DocumentInput,
  DocumentMetadata,
  IndexBatchRequest,
  wellFormed,
} from '@tessera/shared';
import type { z } from 'zod';
import { ServiceError } from '../../errors';
import { newId } from '../../lib/ids';
import { invalidParameter } from '../../lib/invalid-parameter';
import type { SearchLimits } from './limits';

/** A document ready to write: id assigned, strings cleaned, metadata a plain object. */
export interface CleanDocument {
  id: string;
  title: string;
  body: string;
  metadata: Record<string, unknown>;
}

/** Parses with a zod schema; the first issue becomes a 400 naming the parameter at fault. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw invalidParameter(result.error.issues[0], { prefix });
}

/** Metadata goes to jsonb: NUL is refused (Postgres cannot store it) and lone surrogates replaced. */
function cleanJson(value: unknown, param: string): unknown {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) {
      throw new ServiceError('invalid_request', `${param} must not contain NUL characters.`, {
        param,
        code: 'invalid_value',
      });
    }
    return wellFormed(value);
  }
  if (Array.isArray(value)) return value.map((v, i) => cleanJson(v, `${param}[${i}]`));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = cleanJson(k, param) as string;
      out[key] = cleanJson(v, `${param}.${key}`);
    }
    return out;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  return value;
}

function cleanDocument(raw: unknown, param: string, limits: SearchLimits): CleanDocument {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ServiceError('invalid_request', `${param} must be an object with a \`text\` or a \`title\`.`, {
      param,
      code: 'invalid_value',
    });
  }
  const metadata = (raw as { metadata?: unknown }).metadata;
  if (
    metadata !== undefined &&
    (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
  ) {
    throw new ServiceError('invalid_request', `${param}.metadata must be a JSON object.`, {
      param: `${param}.metadata`,
      code: 'invalid_value',
    });
  }
  const doc = parseOrThrow(DocumentInput, raw, param);
  if ((doc.text ?? '').trim() === '' && (doc.title ?? '').trim() === '') {
    throw new ServiceError('invalid_request', `${param} needs a non-empty \`text\` or \`title\`.`, {
      param: `${param}.text`,
      code: 'invalid_value',
    });
  }
  const clean: CleanDocument = {
    id: doc.id ?? newId('doc'),
    title: doc.title ?? '',
    body: doc.text ?? '',
    metadata: cleanJson(
      parseOrThrow(DocumentMetadata, doc.metadata ?? {}, `${param}.metadata`),
      `${param}.metadata`,
    ) as Record<string, unknown>,
  };
  const bytes =
    Buffer.byteLength(clean.title) +
    Buffer.byteLength(clean.body) +
    Buffer.byteLength(JSON.stringify(clean.metadata));
  if (bytes > limits.maxDocumentBytes) {
    throw new ServiceError(
      'payload_too_large',
      `${param} is ${bytes} bytes (title, text and metadata); the limit is ${limits.maxDocumentBytes} bytes per document.`,
      { param, code: 'document_too_large' },
    );
  }
  return clean;
}

/** `POST /api/documents` body → collection and clean documents, or a 400/413 naming the item. */
export function parseIndexRequest(
  body: unknown,
  limits: SearchLimits,
): { collection: string; documents: CleanDocument[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ServiceError(
      'invalid_request',
      'The body must be a JSON object: one document, or `documents`.',
      {
        code: 'invalid_value',
      },
    );
  }
  if (!('documents' in body)) {
    const { collection, ...doc } = body as Record<string, unknown>;
    const name = parseOrThrow(CollectionName.default('default'), collection, 'collection');
    return { collection: name, documents: [cleanDocument(doc, 'document', limits)] };
  }
  const batch = parseOrThrow(IndexBatchRequest, body);
  if (batch.documents.length === 0) {
    throw new ServiceError('invalid_request', '`documents` must hold at least one document.', {
      param: 'documents',
      code: 'invalid_value',
    });
  }
  if (batch.documents.length > limits.maxBatchDocuments) {
    throw new ServiceError(
      'invalid_request',
      `\`documents\` holds ${batch.documents.length} documents; the limit is ${limits.maxBatchDocuments} per request.`,
      { param: 'documents', code: 'too_many_documents' },
    );
  }
  const seen = new Set<string>();
  const documents = batch.documents.map((raw, i) => {
    const doc = cleanDocument(raw, `documents[${i}]`, limits);
    if (seen.has(doc.id)) {
      throw new ServiceError(
        'invalid_request',
        `documents[${i}].id '${doc.id}' appears more than once in the batch.`,
        {
          param: `documents[${i}].id`,
          code: 'duplicate_document_id',
        },
      );
    }
    seen.add(doc.id);
    return doc;
  });
  return { collection: batch.collection ?? 'default', documents };
}

export function parseDocumentId(value: unknown): string {
  return parseOrThrow(DocumentId, value, 'id');
}

export function parseCollectionName(value: unknown, fallback?: string): string {
  return parseOrThrow(fallback ? CollectionName.default(fallback) : CollectionName, value, 'collection');
}
