import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../helpers/fixtures';
import { startTestServer, type TestServer } from '../helpers/server';
import { metricValue } from '../helpers/usage';

const TOKEN = 'metrics-token-0123456789';
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { METRICS_TOKEN: TOKEN } });
});
afterAll(async () => {
  await server?.close();
});

/** A reverse proxy on the same host, as nginx would be: every request reaches `target` from loopback. */
async function startProxy(target: string): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const proxy = createServer((req, res) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, server: proxy };
}

describe('/metrics without METRICS_TOKEN: on the metrics listener only', () => {
  let plain: TestServer;
  let proxy: { url: string; server: Server };
  beforeAll(async () => {
    plain = await startTestServer();
    proxy = await startProxy(plain.url);
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy?.server.close(resolve));
    await plain?.close();
  });

  it('is not on the public port, so a reverse proxy on the same host cannot publish it', async () => {
    for (const base of [proxy.url, plain.url]) {
      const res = await fetch(`${base}/metrics`);
      expect(res.status, base).toBe(404);
      const body = (await res.json()) as { error: { code: string } };
      expect(body.error.code).toBe('unknown_url');
    }
  });

  it('is served by the metrics listener, bound to loopback, and nothing else is', async () => {
    expect(plain.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(plain.metricsUrl).not.toBe(plain.url);
    const res = await fetch(`${plain.metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('# TYPE tessera_http_requests_total counter');
    expect((await fetch(`${plain.metricsUrl}/v1/models`)).status).toBe(404);
  });

  it('can be turned off (METRICS_PORT=off)', async () => {
    const off = await startTestServer({ env: { METRICS_PORT: 'off' } });
    try {
      expect(off.metricsUrl).toBeUndefined();
      expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

describe('/metrics with METRICS_TOKEN', () => {
  it('requires the METRICS_TOKEN bearer token when one is configured, on both listeners', async () => {
    for (const base of [server.url, server.metricsUrl]) {
      expect((await fetch(`${base}/metrics`)).status, base).toBe(401);
      const wrong = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
      expect(wrong.status, base).toBe(401);
      const right = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(right.status, base).toBe(200);
      await right.text();
    }
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
