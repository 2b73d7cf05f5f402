/** A failed REST call, carrying the OpenAI error body's message and code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** Who the playground calls as: the signed-in account in test mode (no key), or a key the user pasted. */
export type Caller = { kind: 'session' } | { kind: 'key'; key: string };

/** The session's twins of the public routes: same handlers, authenticated by the cookie, always test mode. */
const SESSION_PATHS = {
  '/v1/chat/completions': '/api/playground/chat/completions',
  '/api/code/analyze': '/api/playground/code/analyze',
} as const;

export type PlaygroundPath = keyof typeof SESSION_PATHS;

/**
 * Calls the API as `caller`. A pasted key lives in component state only (never stored) and goes in the
 * Authorization header; the session sends its cookie and the CSRF header instead.
 */
export async function callApi(
  caller: Caller,
  path: PlaygroundPath,
  body: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  const auth: Record<string, string> =
    caller.kind === 'key' ? { authorization: `Bearer ${caller.key}` } : { 'x-tessera-csrf': '1' };
  const res = await fetch(caller.kind === 'key' ? path : SESSION_PATHS[path], {
    method: 'POST',
    credentials: 'same-origin',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal && { signal }),
  });
  if (!res.ok) throw await apiErrorOf(res);
  return res;
}

export async function apiErrorOf(res: Response): Promise<ApiError> {
  try {
    const body = (await res.json()) as { error?: { message?: string; code?: string | null } };
    return new ApiError(res.status, body.error?.message ?? `HTTP ${res.status}`, body.error?.code ?? null);
  } catch {
    return new ApiError(res.status, `HTTP ${res.status}`, null);
  }
}
