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

/**
 * Calls the public REST API with a key the user pasted into the page. The key lives in component state
 * only (never stored), and the request goes to this same origin.
 */
export async function callApi(
  key: string,
  path: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
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
