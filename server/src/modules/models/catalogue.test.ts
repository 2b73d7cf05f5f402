import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelCatalogue } from './catalogue';

function fromModels(models: unknown[]): ModelCatalogue {
  const file = join(mkdtempSync(join(tmpdir(), 'tessera-catalogue-')), 'models.json');
  writeFileSync(file, JSON.stringify({ models }));
  return ModelCatalogue.fromFile(file);
}

const chat = {
  id: 'chat',
  provider: 'openai',
  upstream_model: 'gpt',
  context_window: 8192,
  max_output_tokens: 1024,
  description: '',
  created: 0,
};
const embedding = {
  id: 'embed',
  type: 'embedding',
  provider: 'openai',
  upstream_model: 'text-embedding-3-small',
  context_window: 8192,
  dimensions: 1536,
  description: '',
  created: 0,
};

describe('ModelCatalogue.fromFile', () => {
  it('takes responses_api on a chat model served by openai, and stops start-up on it elsewhere', () => {
    expect(fromModels([{ ...chat, responses_api: true }]).find('chat')?.responses_api).toBe(true);
    expect(() =>
      fromModels([
        { ...chat, id: 'claude', provider: 'anthropic', responses_api: true },
        { ...embedding, responses_api: true },
      ]),
    ).toThrow(
      /models\.0\.responses_api: only a chat model served by an OpenAI-compatible upstream.*models\.1\.responses_api/,
    );
  });

  it('reads chat and embedding models apart', () => {
    const catalogue = fromModels([chat, embedding]);
    expect(catalogue.entries.map((m) => m.id)).toEqual(['chat']);
    expect(catalogue.embeddingEntries).toEqual([{ ...embedding, accepts_dimensions: false }]);
    expect(catalogue.findAny('embed')?.type).toBe('embedding');
    expect(() => catalogue.require('embed')).toThrow(/embedding model.*POST \/v1\/embeddings/);
    expect(() => catalogue.requireEmbedding('chat')).toThrow(/'chat' is a chat model/);
  });

  it('stops start-up on an Anthropic embedding model, a missing dimension or a repeated id, naming each', () => {
    expect(() =>
      fromModels([
        chat,
        { ...embedding, provider: 'anthropic' },
        { ...embedding, id: 'nodims', dimensions: undefined },
        { ...chat, description: 'again' },
      ]),
    ).toThrow(
      /models\.1\.provider: Anthropic has no embeddings endpoint.*models\.2\.dimensions: .*models\.3\.id: 'chat' is already the id of another model/,
    );
  });
});
