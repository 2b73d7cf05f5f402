import { describe, expect, it } from 'vitest';
import { configFromEnv } from './config';
import { parseEnv } from './env';

describe('parseEnv', () => {
  it('applies defaults', () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(8080);
    expect(env.DATA_DIR).toBe('./.data');
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.REDIS_URL).toBeUndefined();
    expect(env.LOG_LEVEL).toBe('info');
  });

  it('fails with one message naming every bad variable', () => {
    expect(() => parseEnv({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' })).toThrowError(
      /PORT[\s\S]*DATABASE_URL: must be a postgres[\s\S]*LOG_LEVEL/,
    );
  });

  it('takes a migration URL only beside a DATABASE_URL that names a role of its own', () => {
    const owner = 'postgres://postgres@db/tessera';
    const split = parseEnv({
      DATABASE_URL: 'postgres://tessera_app:pw@db/tessera',
      MIGRATION_DATABASE_URL: owner,
    });
    expect(split.MIGRATION_DATABASE_URL).toBe(owner);
    expect(() => parseEnv({ MIGRATION_DATABASE_URL: owner })).toThrowError(
      /MIGRATION_DATABASE_URL: needs DATABASE_URL/,
    );
    expect(() =>
      parseEnv({ DATABASE_URL: 'postgres://db/tessera', MIGRATION_DATABASE_URL: owner }),
    ).toThrowError(/MIGRATION_DATABASE_URL: needs DATABASE_URL to name its role/);
    expect(() =>
      parseEnv({ DATABASE_URL: 'postgres://postgres:pw@db/tessera', MIGRATION_DATABASE_URL: owner }),
    ).toThrowError(/names the same role as DATABASE_URL \("postgres"\)/);
  });

  it('treats empty values as unset', () => {
    expect(parseEnv({ REDIS_URL: '' }).REDIS_URL).toBeUndefined();
  });

  it('turns OpenTelemetry export on only with an http(s) collector, and keeps header values out of its messages', () => {
    expect(configFromEnv(parseEnv({})).tracing).toBeUndefined();
    const on = configFromEnv(
      parseEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318/',
        OTEL_EXPORTER_OTLP_HEADERS: 'api-key=s%3Dcret, X-Team = core',
      }),
    ).tracing;
    expect(on).toEqual({
      url: 'https://collector.example:4318/v1/traces',
      headers: { 'api-key': 's=cret', 'x-team': 'core' },
      serviceName: 'tessera',
      scheduleDelayMs: 5000,
    });
    const traces = parseEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom/traces',
    });
    expect(configFromEnv(traces).tracing?.url).toBe('http://b:4318/custom/traces');
    expect(() => parseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector:21' })).toThrowError(
      /OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:\/\/ or https:\/\/ URL/,
    );
    let message = '';
    try {
      parseEnv({ OTEL_EXPORTER_OTLP_HEADERS: 'api-key=%E0%A4%A-secret-value' });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/OTEL_EXPORTER_OTLP_HEADERS: must be a comma-separated list of name=value/);
    expect(message).not.toContain('secret-value');
  });
});
