/** A pino destination that keeps every line a test server writes, parsed, for assertions on the logs. */
export class LogCapture {
  readonly raw: string[] = [];

  write(line: string): void {
    this.raw.push(line);
  }

  entries(): Record<string, unknown>[] {
    return this.raw.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Lines whose fields include every field of `match`. */
  find(match: Record<string, unknown>): Record<string, unknown>[] {
    return this.entries().filter((e) => Object.entries(match).every(([k, v]) => e[k] === v));
  }

  text(): string {
    return this.raw.join('');
  }
}
