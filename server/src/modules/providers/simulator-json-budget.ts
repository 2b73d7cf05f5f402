/**
 * The work one simulated answer may spend on the client's schemas: its JSON documents (every choice's content,
 * every tool call's arguments) and the strings their patterns ask for, counted in steps. A step is one schema node
 * or property visited, one pattern node built, one word written or one repetition planned (costlier work counts
 * several: a value two, a number ten, a property copied by `allOf` four): each step is some 0.1-0.5 µs on a
 * 2-core machine, so the whole budget holds the event loop for 2-10 ms. The schema is the client's,
 * and its cost is counted as the work is done, before anything is allocated for it (`x{2147483647}` spends its
 * count before the repetitions are planned), so no schema can make the walk outlast it.
 */
export const MAX_SCHEMA_STEPS = 20_000;
/**
 * The most characters the documents of one answer may hold: they are then counted with the BPE on the event loop
 * (some 30 ms for this many), and a `const` or `enum` value is the client's own, of any size.
 */
export const MAX_DOCUMENT_CHARS = 131_072;
/** The longest string the simulator makes (a longer `minLength`, or a pattern's shortest match, is the client's 400). */
export const MAX_STRING_LENGTH = 16_384;

/** Thrown when the budget runs out; the walk's entry point turns it into the client's 400 (simulator-json.ts). */
export class SchemaBudgetExceeded extends Error {
  constructor(readonly what: string) {
    super(`the simulator's answer would exceed ${what}`);
    this.name = 'SchemaBudgetExceeded';
  }
}

export class SchemaBudget {
  private steps = 0;
  private chars = 0;

  /** Counts `steps` more, throwing SchemaBudgetExceeded once they pass MAX_SCHEMA_STEPS. */
  spend(steps: number): void {
    this.steps += steps;
    if (this.steps > MAX_SCHEMA_STEPS) throw new SchemaBudgetExceeded(`${MAX_SCHEMA_STEPS} steps of work`);
  }

  /** Counts `chars` more characters of document, throwing once they pass MAX_DOCUMENT_CHARS. */
  write(chars: number): void {
    this.chars += chars;
    if (this.chars > MAX_DOCUMENT_CHARS)
      throw new SchemaBudgetExceeded(`${MAX_DOCUMENT_CHARS} characters of JSON`);
  }
}
