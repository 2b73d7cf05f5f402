/** Child process: the fake OpenAI upstream on loopback; prints its URL. */
import { startFakeOpenAi } from '../../server/test/helpers/fake-upstreams';

const upstream = await startFakeOpenAi();
process.stdout.write(`${JSON.stringify({ url: upstream.url })}\n`);
process.on('SIGTERM', () => {
  upstream.close().finally(() => process.exit(0));
});
