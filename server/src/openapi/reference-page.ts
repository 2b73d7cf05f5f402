type JsonObject = Record<string, unknown>;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function typeOf(schema: JsonObject): string {
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop() ?? 'object';
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const variants = (schema.anyOf ?? schema.oneOf) as JsonObject[] | undefined;
  if (variants) return variants.map(typeOf).join(' | ');
  if (schema.type === 'array') return `${typeOf((schema.items as JsonObject | undefined) ?? {})}[]`;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return typeof schema.type === 'string' ? schema.type : 'any';
}

function constraints(schema: JsonObject): string {
  const keys = [
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'minLength',
    'maxLength',
    'minItems',
    'maxItems',
    'default',
  ];
  return keys
    .filter((k) => schema[k] !== undefined)
    .map((k) => `${k}: ${JSON.stringify(schema[k])}`)
    .join(', ');
}

/** A property table for an object schema, one level deep (nested objects show their type). */
function schemaTable(name: string, schema: JsonObject | undefined): string {
  if (!schema) return '';
  const props = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const rows = Object.entries(props)
    .map(
      ([prop, s]) =>
        `<tr><td><code>${escapeHtml(prop)}</code>${required.has(prop) ? ' <span class="req">required</span>' : ''}</td>` +
        `<td><code>${escapeHtml(typeOf(s))}</code></td><td>${escapeHtml(String(s.description ?? ''))}` +
        `${constraints(s) ? ` <span class="muted">(${escapeHtml(constraints(s))})</span>` : ''}</td></tr>`,
    )
    .join('');
  if (!rows) return `<p><code>${escapeHtml(name)}</code>: <code>${escapeHtml(typeOf(schema))}</code></p>`;
  return `<h4>${escapeHtml(name)}</h4><table><thead><tr><th>Field</th><th>Type</th><th>Notes</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The API reference as one self-contained HTML page (no scripts, no CDN), rendered from the OpenAPI document. */
export function renderReferencePage(doc: JsonObject): string {
  const info = doc.info as { title: string; description: string };
  const schemas = ((doc.components as JsonObject).schemas ?? {}) as Record<string, JsonObject>;
  const paths = doc.paths as Record<string, Record<string, JsonObject>>;
  const refName = (content: unknown): string | undefined => {
    const ref = ((content as JsonObject | undefined)?.schema as JsonObject | undefined)?.$ref;
    return typeof ref === 'string' ? ref.split('/').pop() : undefined;
  };
  const sections = Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const reqName = refName(
        ((op.requestBody as JsonObject | undefined)?.content as JsonObject | undefined)?.['application/json'],
      );
      const responses = op.responses as Record<string, JsonObject>;
      const okName = refName((responses['200']?.content as JsonObject | undefined)?.['application/json']);
      const errs = Object.entries(responses)
        .filter(([s]) => s !== '200')
        .map(([s, r]) => `<li><code>${s}</code> ${escapeHtml(String(r.description))}</li>`)
        .join('');
      const id = `${method}-${path}`.replace(/[^a-z0-9]+/gi, '-');
      return `<section id="${id}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${escapeHtml(String(op.summary))}. ${escapeHtml(String(op.description ?? ''))}</p>
${reqName ? schemaTable(`Request body: ${reqName}`, schemas[reqName]) : ''}
${okName ? schemaTable(`Response: ${okName}`, schemas[okName]) : ''}
<h4>Errors</h4><ul>${errs}</ul></section>`;
    }),
  );
  const nav = Object.entries(paths)
    .flatMap(([path, methods]) =>
      Object.keys(methods).map(
        (m) =>
          `<li><a href="#${`${m}-${path}`.replace(/[^a-z0-9]+/gi, '-')}">${m.toUpperCase()} ${escapeHtml(path)}</a></li>`,
      ),
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(info.title)} reference</title><style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1a1a2e;display:flex}nav{width:260px;padding:1rem;border-right:1px solid #ddd;position:sticky;top:0;height:100vh;overflow:auto}
main{flex:1;padding:1rem 2rem;max-width:960px}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
code{font:13px ui-monospace,monospace}.m{padding:.1rem .4rem;border-radius:4px;color:#fff;font-size:12px}.get{background:#0b6e4f}.post{background:#1d4ed8}.delete{background:#b91c1c}.put,.patch{background:#a16207}
.req{color:#b91c1c;font-size:12px}.muted{color:#555}a{color:#1d4ed8}@media(max-width:700px){body{display:block}nav{position:static;width:auto;height:auto;border:0}}
</style></head><body><nav><strong>${escapeHtml(info.title)}</strong><p><a href="/openapi.json">openapi.json</a></p><ul>${nav}</ul></nav>
<main><h1>${escapeHtml(info.title)} reference</h1><p>${escapeHtml(info.description)}</p>${sections.join('\n')}</main></body></html>`;
}
