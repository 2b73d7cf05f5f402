import {
  ANALYSIS_TYPES,
  type AnalysisType,
  type CodeAnalyzeRequest,
  type CodeLanguage,
  CodeAnalyzeRequest as RequestSchema,
} from '@tessera/shared';
import { ServiceError } from '../../errors';
import { invalidParameter } from '../../lib/invalid-parameter';
import { resolveLanguage, supportedLanguageNames } from './languages';
import type { AnalysisJob, ComplexityThresholds } from './types';

/** What the parameters must be, in words (lib/invalid-parameter.ts). */
const EXPECTED = { code: 'the source code to analyse, as a string' };

/** Validates a request body into a job; every failure names the parameter and the accepted values. */
export function parseAnalyzeRequest(
  body: unknown,
  maxBytes: number,
  thresholds: ComplexityThresholds,
): AnalysisJob {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ServiceError(
      'invalid_request',
      'The request body must be a JSON object with a `code` string.',
      {
        param: 'code',
        code: 'invalid_request_body',
      },
    );
  }
  const result = RequestSchema.safeParse(body, { reportInput: true });
  if (!result.success) throw invalidParameter(result.error.issues[0], { expected: EXPECTED });
  const input: CodeAnalyzeRequest = result.data;
  const bytes = Buffer.byteLength(input.code, 'utf8');
  if (bytes > maxBytes) {
    throw new ServiceError(
      'payload_too_large',
      `\`code\` is ${bytes} bytes; the limit is ${maxBytes} bytes.`,
      {
        param: 'code',
        code: 'code_too_large',
      },
    );
  }
  return {
    code: input.code,
    language: languageOf(input.language),
    filename: input.filename,
    analysisType: analysisTypeOf(input.analysis_type),
    thresholds,
  };
}

function languageOf(name: string | undefined): CodeLanguage | undefined {
  if (name === undefined || name.trim() === '' || name.trim().toLowerCase() === 'auto') return undefined;
  const lang = resolveLanguage(name);
  if (!lang) {
    throw new ServiceError(
      'invalid_request',
      `Unsupported language '${name.slice(0, 40)}'. Supported: ${supportedLanguageNames()}; omit \`language\` to detect it.`,
      { param: 'language', code: 'unsupported_language' },
    );
  }
  return lang;
}

function analysisTypeOf(value: string | undefined): AnalysisType {
  if (value === undefined) return 'all';
  const normalized = value.trim().toLowerCase();
  if ((ANALYSIS_TYPES as readonly string[]).includes(normalized)) return normalized as AnalysisType;
  throw new ServiceError(
    'invalid_request',
    `Invalid analysis_type '${value.slice(0, 40)}'. Supported values: ${ANALYSIS_TYPES.join(', ')}.`,
    { param: 'analysis_type', code: 'invalid_analysis_type' },
  );
}
