import type { ChatCompletionChunk, ChunkChoice, Usage } from '@tessera/shared';
import { randomBase62 } from '../../lib/ids';

/** OpenAI's completion ids: `chatcmpl-` and 29 random characters. */
export function completionId(): string {
  return `chatcmpl-${randomBase62(29)}`;
}

/** Builds every chunk of one stream with the same id, created time and model. */
export class ChunkEnvelope {
  readonly id = completionId();

  constructor(
    readonly created: number,
    readonly model: string,
    /** With `include_usage`, OpenAI sends `usage: null` on every chunk but the last. */
    private readonly includeUsage: boolean,
  ) {}

  chunk(choices: ChunkChoice[]): ChatCompletionChunk {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices,
      ...(this.includeUsage && { usage: null }),
    };
  }

  usage(usage: Usage): ChatCompletionChunk {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [],
      usage,
    };
  }
}
