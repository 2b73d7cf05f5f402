import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from './helpers/fixtures';
import { startTestServer, type TestServer } from './helpers/server';
import { metricValue } from './usage-helpers';

const TOKEN = 'metrics-token-0123456789';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { METRICS_TOKEN: TOKEN } });
});
afterAll(async () => {
  await server?.close();
});

describe('/metrics', () => {
  it('requires the METRICS_TOKEN bearer token when one is configured', async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
  });

  it('exposes request, latency, usage-pipeline and limiter series, and no tenant data', async () => {
    const { account, key } = await createAccountWithKey(server);
    await (
      await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${key.key}` } })
    ).text();
    await server.services.usage.flush();
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(
      metricValue(text, 'tessera_http_requests_total', '{method="GET",route="/v1/models",status="200"}'),
    ).toBe(1);
    expect(
      metricValue(text, 'tessera_http_request_duration_seconds_count', '{method="GET",route="/v1/models"}'),
    ).toBe(1);
    expect(metricValue(text, 'tessera_usage_events_written_total')).toBe(1);
    expect(metricValue(text, 'tessera_usage_buffer_depth')).toBe(0);
    for (const name of [
      'tessera_ratelimit_fallback_decisions_total',
      'tessera_unattributed_requests_total',
    ]) {
      expect(text).toContain(`# TYPE ${name} counter`);
    }
    for (const secret of [account.id, account.email, key.id, key.key]) expect(text).not.toContain(secret);
  });
});
