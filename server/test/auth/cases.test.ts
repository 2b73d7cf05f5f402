import { afterAll, beforeAll, describe } from 'vitest';
import { restRoutes } from '../../src/rest';
import { authCases } from '../helpers/auth-suite';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

// The route list comes from the server itself, so a new endpoint is covered the day it is added.
const routes = await (async () => {
  const probe = await startTestServer();
  const list = restRoutes(probe.services);
  await probe.close();
  return list;
})();

for (const route of routes) {
  describe(`${route.method.toUpperCase()} ${route.path}`, () => authCases(() => server, route));
}
