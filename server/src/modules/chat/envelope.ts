import type { ChunkChoice, Usage } from '@tessera/shared';
import { randomBase62 } from '../../lib/ids';

/** OpenAI's completion ids: `chatcmpl-` and 29 random characters. */
export function completionId(): string {
  return randomBase62(29, 'chatcmpl-');
}

/**
 * Builds every chunk of one stream, as its JSON text, with the same id, created time and model
 * (`ChatCompletionChunk`'s fields in OpenAI's order). What every chunk shares is serialized once per stream; a
 * chunk serializes only its choices.
 */
export class ChunkEnvelope {
  readonly id = completionId();
  /** `{"id":…,"object":…,"created":…,"model":…[,"system_fingerprint":…],"choices":` */
  private head: string;
  /** With `include_usage`, OpenAI sends `usage: null` on every chunk but the last. */
  private readonly tail: string;
  /** The provider's `system_fingerprint` so far; undefined while it has given none (then the field is left out). */
  private fingerprint: string | null | undefined;

  constructor(
    readonly created: number,
    readonly model: string,
    includeUsage: boolean,
  ) {
    this.head = this.headOf(undefined);
    this.tail = includeUsage ? ',"usage":null}' : '}';
  }

  private headOf(fingerprint: string | null | undefined): string {
    const { id, created, model } = this;
    const head = JSON.stringify(
      fingerprint === undefined
        ? { id, object: 'chat.completion.chunk', created, model }
        : { id, object: 'chat.completion.chunk', created, model, system_fingerprint: fingerprint },
    );
    return `${head.slice(0, -1)},"choices":`;
  }

  /** The provider's chunk's `system_fingerprint`, relayed on this chunk and the ones after (it rarely changes). */
  fingerprintOf(fingerprint: string | null | undefined): void {
    if (fingerprint === undefined || fingerprint === this.fingerprint) return;
    this.fingerprint = fingerprint;
    this.head = this.headOf(fingerprint);
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
