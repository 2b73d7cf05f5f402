import type { ChunkChoice, Usage } from '@tessera/shared';
import { randomBase62 } from '../../lib/ids';

/** OpenAI's completion ids: `chatcmpl-` and 29 random characters. */
export function completionId(): string {
  return `chatcmpl-${randomBase62(29)}`;
}

/**
 * Builds every chunk of one stream, as its JSON text, with the same id, created time and model
 * (`ChatCompletionChunk`'s fields in OpenAI's order). What every chunk shares is serialized once per stream; a
 * chunk serializes only its choices.
 */
export class ChunkEnvelope {
  readonly id = completionId();
  /** `{"id":…,"object":…,"created":…,"model":…,"choices":` */
  private readonly head: string;
  /** With `include_usage`, OpenAI sends `usage: null` on every chunk but the last. */
  private readonly tail: string;

  constructor(
    readonly created: number,
    readonly model: string,
    includeUsage: boolean,
  ) {
    const head = JSON.stringify({ id: this.id, object: 'chat.completion.chunk', created, model });
    this.head = `${head.slice(0, -1)},"choices":`;
    this.tail = includeUsage ? ',"usage":null}' : '}';
  }

  /** A chunk of these choices (JSON). */
  chunk(choices: ChunkChoice[]): string {
    return `${this.head}${JSON.stringify(choices)}${this.tail}`;
  }

  /** The last chunk with `include_usage`: no choices, the usage (JSON). */
  usage(usage: Usage): string {
    return `${this.head}[],"usage":${JSON.stringify(usage)}}`;
  }
}
