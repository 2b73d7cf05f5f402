/** The dashboard's session, shared by the transports that accept it (tRPC, GraphQL, the playground routes). */
export const SESSION_COOKIE = 'tessera_session';
/** Mutations must carry this header: a cross-site form or image cannot set it (CSRF). */
export const CSRF_HEADER = 'x-tessera-csrf';
/** The key id the playground's usage is recorded under (no API key is involved). */
export const PLAYGROUND_KEY_ID = 'playground';
