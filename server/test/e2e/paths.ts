import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const SCREENSHOTS = join(REPO, 'test-results', 'screenshots');
/** The run's dashboard build (made by dashboard-build.ts, the browser tests' global setup). */
export const DASHBOARD_BUILD_ENV = 'TESSERA_TEST_DASHBOARD';
