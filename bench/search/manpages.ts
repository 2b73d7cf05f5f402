/**
 * A judged test collection built from the Linux man-pages shipped by Debian's `manpages-dev`
 * package (sections 2 and 3, installed under /usr/share/man). Nothing is downloaded.
 *
 * - Document: one page; title = the names it documents ("open, openat, creat"), text = every
 *   section except NAME and SEE ALSO, troff markup removed.
 * - Query: the one-line summary of the NAME section ("open and possibly create a file"), which is
 *   not part of any document's text.
 * - Judgements: the page whose summary it is (and any page with the identical summary) grade 2;
 *   the pages its SEE ALSO section cites grade 1 (the authors' own cross-references).
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

export interface FixtureDocument {
  id: string;
  title: string;
  text: string;
}
export interface FixtureQuery {
  id: string;
  text: string;
  /** Document id → grade (2 the page itself, 1 a cross-referenced page). */
  judgements: Map<string, number>;
}
export interface Fixture {
  source: string;
  documents: FixtureDocument[];
  queries: FixtureQuery[];
}

const pageId = (file: string) => file.split('/').pop()?.replace(/\.gz$/, '') ?? file;

function inline(text: string): string {
  return text
    .replace(/\\f(\[[^\]]*\]|\(..|.)/g, '')
    .replace(/\\s[+-]?\d/g, '')
    .replace(/\\\(aq/g, "'")
    .replace(/\\\(dq/g, '"')
    .replace(/\\\((em|en)/g, '-')
    .replace(/\\\(..|\\\*\(..|\\\*./g, '')
    .replace(/\\-/g, '-')
    .replace(/\\e/g, '\\')
    .replace(/\\[&c~|^]/g, '')
    .replace(/\\ /g, ' ');
}

/** The arguments of a macro line, quotes honoured; font macros join them without spaces. */
function macroText(line: string): string {
  const match = /^[.'](\S+)\s*(.*)$/.exec(line);
  if (!match) return inline(line);
  const [, name = '', rest = ''] = match;
  const args = [...rest.matchAll(/"((?:[^"]|"")*)"|(\S+)/g)].map((m) =>
    (m[1] ?? m[2] ?? '').replace(/""/g, '"'),
  );
  if (/^(B|I|SM|SB)$/.test(name)) return inline(args.join(' '));
  if (/^(BR|IR|RB|RI|BI|IB)$/.test(name)) return inline(args.join(''));
  if (/^(SS|IP|TP)$/.test(name)) return inline(args[0] ?? '');
  return '';
}

interface ParsedPage {
  id: string;
  names: string;
  summary: string;
  text: string;
  seeAlso: string[];
}

function parsePage(id: string, source: string): ParsedPage | string {
  const sections = new Map<string, string[]>();
  let current = '';
  for (const raw of source.split('\n')) {
    if (raw.startsWith('.so ')) return pageId(raw.slice(4).trim());
    if (/^[.']\s*\\"/.test(raw)) continue;
    const heading = /^\.SH\s+"?([^"]*)"?/.exec(raw);
    if (heading) {
      current = (heading[1] ?? '').trim().toUpperCase();
      continue;
    }
    const line = /^[.']/.test(raw) ? macroText(raw) : inline(raw);
    if (line.trim()) sections.set(current, [...(sections.get(current) ?? []), line.trim()]);
  }
  const name = (sections.get('NAME') ?? []).join(' ');
  const dash = name.indexOf(' - ');
  if (dash < 0) return '';
  const seeAlso = [...(sections.get('SEE ALSO') ?? []).join(' ').matchAll(/([\w.+-]+)\s*\((\d\w*)\)/g)].map(
    (m) => `${m[1]}.${m[2]}`,
  );
  const text = [...sections]
    .filter(([section]) => section !== 'NAME' && section !== 'SEE ALSO' && section !== '')
    .map(([, lines]) => lines.join(' '))
    .join('\n');
  return { id, names: name.slice(0, dash).trim(), summary: name.slice(dash + 3).trim(), text, seeAlso };
}

export function buildManpagesFixture(): Fixture {
  // dpkg-query's own ${Version} field syntax, not a template.
  const format = ['-f=$', '{Version}'].join('');
  const version = execFileSync('dpkg-query', ['-W', format, 'manpages-dev'], { encoding: 'utf8' });
  const files = execFileSync('dpkg', ['-L', 'manpages-dev'], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\/man[23]\/[^/]+\.gz$/.test(f));
  const pages = new Map<string, ParsedPage>();
  const aliases = new Map<string, string>();
  for (const file of files) {
    const id = pageId(file);
    // Debian installs many pages as symlinks to the page that documents them together.
    if (lstatSync(file).isSymbolicLink()) {
      aliases.set(id, pageId(realpathSync(file)));
      continue;
    }
    const parsed = parsePage(id, gunzipSync(readFileSync(file)).toString('utf8'));
    if (typeof parsed === 'string') {
      if (parsed) aliases.set(id, parsed);
    } else if (parsed.text.length > 0) pages.set(id, parsed);
  }
  const resolve = (ref: string) => {
    const target = aliases.get(ref) ?? ref;
    return pages.has(target) ? target : undefined;
  };
  const bySummary = new Map<string, string[]>();
  for (const page of pages.values()) {
    const key = page.summary.toLowerCase();
    bySummary.set(key, [...(bySummary.get(key) ?? []), page.id]);
  }
  const queries: FixtureQuery[] = [];
  for (const [summary, ids] of bySummary) {
    const judgements = new Map<string, number>();
    for (const id of ids) {
      for (const ref of pages.get(id)?.seeAlso ?? []) {
        const target = resolve(ref);
        if (target && !ids.includes(target)) judgements.set(target, 1);
      }
    }
    for (const id of ids) judgements.set(id, 2);
    queries.push({ id: ids[0] ?? summary, text: summary, judgements });
  }
  return {
    source: `Debian manpages-dev ${version} (Linux man-pages, sections 2 and 3)`,
    documents: [...pages.values()].map((p) => ({ id: p.id, title: p.names, text: p.text })),
    queries,
  };
}
