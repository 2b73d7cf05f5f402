import { z } from 'zod';

/**
 * The subset of SARIF 2.1.0 (OASIS) that `POST /api/code/analyze` with `format: "sarif"` writes: one run, the
 * rules its results cite, and per result its location, code flow and fingerprint. The official JSON schema is the
 * reference (the server's test validates against it); these schemas describe the shape for OpenAPI and clients.
 */
export const SarifRegion = z.object({
  startLine: z.number().int(),
  startColumn: z.number().int(),
  endLine: z.number().int(),
  endColumn: z.number().int(),
  snippet: z.object({ text: z.string() }).optional(),
});
export type SarifRegion = z.infer<typeof SarifRegion>;

export const SarifLocation = z.object({
  physicalLocation: z.object({
    artifactLocation: z.object({ uri: z.string() }),
    region: SarifRegion,
  }),
  message: z.object({ text: z.string() }).optional(),
});
export type SarifLocation = z.infer<typeof SarifLocation>;

export const SarifRule = z.object({
  id: z.string(),
  name: z.string(),
  shortDescription: z.object({ text: z.string() }),
  helpUri: z.string().optional(),
  defaultConfiguration: z.object({ level: z.enum(['error', 'warning', 'note']) }),
  properties: z.object({
    tags: z.array(z.string()).describe('`security`, `external/cwe/cwe-NNN`, or the finding category.'),
    'security-severity': z
      .string()
      .optional()
      .describe('CVSS-like 0.0–10.0, as a string: GitHub code scanning ranks alerts by it.'),
    precision: z.string().optional(),
  }),
});
export type SarifRule = z.infer<typeof SarifRule>;

export const SarifResult = z.object({
  ruleId: z.string(),
  ruleIndex: z.number().int(),
  level: z.enum(['error', 'warning', 'note']),
  message: z.object({ text: z.string() }),
  locations: z.array(SarifLocation),
  codeFlows: z
    .array(
      z.object({
        threadFlows: z.array(z.object({ locations: z.array(z.object({ location: SarifLocation })) })),
      }),
    )
    .optional()
    .describe("The finding's trace, source to sink."),
  partialFingerprints: z
    .record(z.string(), z.string())
    .describe(
      '`tessera/v1`: a hash of the rule, the path and the whitespace-normalised snippet (and occurrence).',
    ),
  properties: z.object({ confidence: z.string(), severity: z.string() }),
});
export type SarifResult = z.infer<typeof SarifResult>;

export const SarifLog = z.object({
  $schema: z.string(),
  version: z.literal('2.1.0'),
  runs: z.array(
    z.object({
      tool: z.object({
        driver: z.object({
          name: z.string(),
          version: z.string(),
          informationUri: z.string().optional(),
          rules: z.array(SarifRule),
        }),
      }),
      columnKind: z.literal('utf16CodeUnits'),
      results: z.array(SarifResult),
    }),
  ),
});
export type SarifLog = z.infer<typeof SarifLog>;
