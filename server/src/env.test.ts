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

  it('treats empty values as unset', () => {
    expect(parseEnv({ REDIS_URL: '' }).REDIS_URL).toBeUndefined();
  });
});
