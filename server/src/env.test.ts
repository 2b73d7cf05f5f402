import { describe, expect, it } from 'vitest';
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
});
