/** The shape of a failed zod parse that forms need (kept structural so web needs no direct zod import). */
interface IssueList {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}

/** The first message for each field of a failed shared-schema parse, keyed like the server's fieldErrors. */
export function zodFieldErrors(error: IssueList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join('.') || '_';
    out[key] ??= issue.message;
  }
  return out;
}
