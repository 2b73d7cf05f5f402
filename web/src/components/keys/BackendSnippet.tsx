import { CopyButton } from '../CopyButton';
import { ScrollRegion } from '../ScrollRegion';

/** How to call the API from a backend; the key comes from the environment, never from browser code. */
export function BackendSnippet({ origin = window.location.origin }: { origin?: string }) {
  const curl = `curl ${origin}/v1/chat/completions \\
  -H "Authorization: Bearer $TESSERA_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model":"tessera-fast-4k","messages":[{"role":"user","content":"Hello"}]}'`;
  const sdk = `import OpenAI from 'openai';

const client = new OpenAI({
  apiKey: process.env.TESSERA_API_KEY,
  baseURL: '${origin}/v1',
});

const reply = await client.chat.completions.create({
  model: 'tessera-fast-4k',
  messages: [{ role: 'user', content: 'Hello' }],
});
console.log(reply.choices[0].message.content);`;
  return (
    <section className="card" aria-labelledby="backend-title">
      <h2 id="backend-title">Use it from your backend</h2>
      <p>
        Keep keys on your server, in an environment variable such as <code>TESSERA_API_KEY</code>.{' '}
        <strong>Never put a key in browser or mobile code</strong>: anyone could read it and spend your
        allowance. Test keys (<code>sk_test_…</code>) answer from the simulator and are free; live keys use
        real models.
      </p>
      <Snippet title="curl" code={curl} />
      <Snippet title="Node.js with the openai SDK" code={sdk} />
    </section>
  );
}

function Snippet({ title, code }: { title: string; code: string }) {
  return (
    <figure className="snippet">
      <figcaption>
        <span>{title}</span>
        <CopyButton text={code} />
      </figcaption>
      <ScrollRegion label={`${title} example`} className="code-scroll">
        <pre>
          <code>{code}</code>
        </pre>
      </ScrollRegion>
    </figure>
  );
}
