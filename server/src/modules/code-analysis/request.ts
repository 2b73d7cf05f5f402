import {
  ANALYSIS_FORMATS,
  ANALYSIS_TYPES,
  type AnalysisFormat,
  type AnalysisType,
  CODE_ANALYSIS_MAX_FILES,
  CONFIDENCE_LEVELS,
  type CodeAnalyzeRequest,
  type CodeFile,
  type CodeLanguage,
  DEFAULT_MIN_CONFIDENCE,
  type FindingConfidence,
  CodeAnalyzeRequest as RequestSchema,
  THREAT_MODELS,
  type ThreatModel,
} from '@tessera/shared';
import { ServiceError } from '../../errors';
import { invalidParameter } from '../../lib/invalid-parameter';
import { resolveLanguage, supportedLanguageNames } from './languages';
import type { AnalysisJob, ComplexityThresholds, ProjectJob } from './types';

/** What the parameters must be, in words (lib/invalid-parameter.ts). */
const EXPECTED = {
  code: 'the source code to analyse, as a string',
  'files.*.path': 'a relative file path, as a non-empty string',
  'files.*.code': 'the source code of the file, as a string',
};

const invalid = (message: string, param: string, code: string) =>
  new ServiceError('invalid_request', message, { param, code });

/** A validated request: the worker's job, and the format its result is returned in. */
export interface AnalyzeRequest {
  job: AnalysisJob | ProjectJob;
  format: AnalysisFormat;
}

/**
 * Validates a request body into a job (one file, or a project of `files`) and its response format; every failure
 * names the parameter and the accepted values.
 */
export function parseAnalyzeRequest(
  body: unknown,
  maxBytes: number,
  thresholds: ComplexityThresholds,
): AnalyzeRequest {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid(
      'The request body must be a JSON object with a `code` string or a `files` array.',
      'code',
      'invalid_request_body',
    );
  }
  const raw = body as Record<string, unknown>;
  if (raw.code === undefined && raw.files === undefined) {
    throw invalid(
      'Missing required parameter: `code` (the source code to analyse, as a string), or `files` (a project: an array of {path, code, language?}).',
      'code',
      'missing_required_parameter',
    );
  }
  if (raw.code !== undefined && raw.files !== undefined) {
    throw invalid(
      'Give either `code` (one file) or `files` (a project), not both.',
      'files',
      'invalid_parameter_combination',
    );
  }
  if (Array.isArray(raw.files) && raw.files.length > CODE_ANALYSIS_MAX_FILES) {
    throw invalid(
      `\`files\` has ${raw.files.length} files; a project analysis takes at most ${CODE_ANALYSIS_MAX_FILES}.`,
      'files',
      'too_many_files',
    );
  }
  const result = RequestSchema.safeParse(body, { reportInput: true });
  if (!result.success) throw invalidParameter(result.error.issues[0], { expected: EXPECTED });
  const input: CodeAnalyzeRequest = result.data;
  const analysisType = analysisTypeOf(input.analysis_type);
  const minConfidence =
    oneOf(input.min_confidence, CONFIDENCE_LEVELS, 'min_confidence') ?? DEFAULT_MIN_CONFIDENCE;
  const format = oneOf(input.format, ANALYSIS_FORMATS, 'format') ?? 'json';
  const threatModel = threatModelOf(input.threat_model);
  if (input.files) {
    const job = projectJob(input, input.files, maxBytes, thresholds, analysisType, minConfidence);
    return { job: { ...job, threatModel }, format };
  }
  const code = input.code ?? '';
  const bytes = Buffer.byteLength(code, 'utf8');
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
    job: {
      code,
      language: languageOf(input.language),
      filename: input.filename,
      analysisType,
      thresholds,
      minConfidence,
      threatModel,
    },
    format,
  };
}

function projectJob(
  input: CodeAnalyzeRequest,
  files: CodeFile[],
  maxBytes: number,
  thresholds: ComplexityThresholds,
  analysisType: AnalysisType,
  minConfidence: FindingConfidence,
): ProjectJob {
  for (const param of ['language', 'filename'] as const) {
    if (input[param] !== undefined) {
      throw invalid(
        `\`${param}\` applies to \`code\`; with \`files\`, give each file its own \`language\` (or let its path's extension tell it).`,
        param,
        'invalid_parameter_combination',
      );
    }
  }
  if (files.length === 0) {
    throw invalid('`files` is empty; send at least one file.', 'files', 'invalid_value');
  }
  const seen = new Set<string>();
  let bytes = 0;
  const out = files.map((file, i) => {
    const path = file.path.trim();
    if (path === '' || path.length > 512) {
      throw invalid(
        `\`files[${i}].path\` must be a non-empty path of at most 512 characters.`,
        `files[${i}].path`,
        'invalid_value',
      );
    }
    if (seen.has(path)) {
      throw invalid(
        `\`files[${i}].path\` '${path.slice(0, 200)}' appears twice; each file's path must be unique.`,
        `files[${i}].path`,
        'duplicate_path',
      );
    }
    seen.add(path);
    bytes += Buffer.byteLength(file.code, 'utf8');
    return { path, code: file.code, language: languageOf(file.language, `files[${i}].language`) };
  });
  if (bytes > maxBytes) {
    throw new ServiceError(
      'payload_too_large',
      `\`files\` hold ${bytes} bytes of code together; the limit is ${maxBytes} bytes over all the files.`,
      { param: 'files', code: 'code_too_large' },
    );
  }
  return { files: out, analysisType, thresholds, minConfidence };
}

function languageOf(name: string | undefined, param = 'language'): CodeLanguage | undefined {
  if (name === undefined || name.trim() === '' || name.trim().toLowerCase() === 'auto') return undefined;
  const lang = resolveLanguage(name);
  if (!lang) {
    throw new ServiceError(
      'invalid_request',
      `Unsupported language '${name.slice(0, 40)}'. Supported: ${supportedLanguageNames()}; omit \`${param}\` to detect it.`,
      { param, code: 'unsupported_language' },
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

/** An optional enumerated parameter, case-insensitive; anything else is 400 `invalid_value` listing the values. */
function oneOf<T extends string>(
  value: string | undefined,
  values: readonly T[],
  param: string,
): T | undefined {
  if (value === undefined) return undefined;
  const normalized = value.trim().toLowerCase();
  const found = values.find((v) => v === normalized);
  if (found) return found;
  throw invalid(
    `Invalid ${param} '${value.slice(0, 40)}'. Supported values: ${values.join(', ')}.`,
    param,
    'invalid_value',
  );
}

function threatModelOf(value: string | undefined): ThreatModel {
  if (value === undefined) return 'web';
  const normalized = value.trim().toLowerCase();
  if ((THREAT_MODELS as readonly string[]).includes(normalized)) return normalized as ThreatModel;
  throw new ServiceError(
    'invalid_request',
    `Invalid threat_model '${value.slice(0, 40)}'. Supported values: ${THREAT_MODELS.join(', ')} (web: request input only; all: also files, sockets, databases, environment and command line).`,
    { param: 'threat_model', code: 'invalid_threat_model' },
  );
}
