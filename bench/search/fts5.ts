/**
 * SQLite FTS5 as the search benchmarks' reference engine (issue 43): the same documents and queries,
 * in the same process run, ranked by FTS5's `bm25()` with the title weighted 3 as BM25F weights it,
 * the Porter stemmer as the `english` configuration stems and the same English stop words left out
 * of the queries. Through better-sqlite3, a devDependency of bench/search only. Its native addon is
 * not built at install (pnpm-workspace.yaml: neither the server nor CI needs it); the first use here
 * builds it from the SQLite it ships (`npm run build-release` in its folder, 3-7 minutes on 2 shared cores, with the
 * Node headers of /usr/include/node when the system has them, as this machine cannot download them).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

interface Statement {
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface Sqlite {
  exec(sql: string): void;
  pragma(sql: string): unknown;
  prepare(sql: string): Statement;
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  close(): void;
}
type SqliteConstructor = new (file: string) => Sqlite;

const require = createRequire(new URL('./package.json', import.meta.url));

function loadSqlite(): SqliteConstructor {
  const folder = dirname(dirname(require.resolve('better-sqlite3')));
  if (!existsSync(join(folder, 'build', 'Release', 'better_sqlite3.node'))) {
    console.log(`building better-sqlite3's addon once (a few minutes): npm run build-release in ${folder}`);
    const headers = existsSync('/usr/include/node/node.h') ? { npm_config_nodedir: '/usr' } : {};
    execFileSync('npm', ['run', 'build-release'], {
      cwd: folder,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, ...headers },
    });
  }
  return require('better-sqlite3') as SqliteConstructor;
}

/** PostgreSQL's `english` stop words (snowball), left out of FTS5 queries as Tessera's analysis leaves them out. */
export const STOP_WORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself ' +
    'it its itself they them their theirs themselves what which who whom this that these those am is are was were ' +
    'be been being have has had having do does did doing a an the and but if or because as until while of at by ' +
    'for with about against between into through during before after above below to from up down in out on off ' +
    'over under again further then once here there when where why how all any both each few more most other some ' +
    'such no nor not only own same so than too very s t can will just don should now'
  ).split(' '),
);

/** A query as both engines take it: `words` ORed (or ANDed), `phrases` ORed with them, `exclude` alone. */
export interface ReferenceQuery {
  words?: string[];
  phrases?: string[];
  and?: boolean;
  exclude?: string;
  minYear?: number;
}

const quote = (term: string) => `"${term.replace(/"/g, '""')}"`;
const tokens = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The FTS5 MATCH expression of a query (every word and phrase quoted, so no word is read as an operator). */
export function matchExpression(q: ReferenceQuery): string {
  const parts = [
    ...[...new Set(tokens((q.words ?? []).join(' ')))].filter((t) => !STOP_WORDS.has(t)).map(quote),
    // A phrase keeps its stop words: FTS5 indexes them, and Tessera keeps their place.
    ...(q.phrases ?? []).map((p) => quote(tokens(p).join(' '))),
  ];
  return parts.join(q.and ? ' AND ' : ' OR ');
}

export interface ReferenceDocument {
  id: string;
  title: string;
  text: string;
  metadata: { year: number };
}

export class Fts5Reference {
  private readonly file = join(tmpdir(), `tessera-fts5-${process.pid}.db`);
  private readonly db: Sqlite;

  constructor() {
    const Sqlite = loadSqlite();
    this.db = new Sqlite(this.file);
    // A file on disk in WAL mode, synchronous NORMAL: SQLite's usual setup for an application's index.
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(
      "create virtual table docs using fts5(id unindexed, title, body, year unindexed, tokenize = 'porter unicode61')",
    );
    // `order by rank` then sorts inside FTS5 with these column weights (id, title, body, year), and the
    // snippet is made for the returned rows only.
    this.db.exec("insert into docs(docs, rank) values ('rank', 'bm25(0.0, 3.0, 1.0, 0.0)')");
  }

  /** Indexes a batch in one transaction, as Tessera indexes a POST. */
  add(documents: ReferenceDocument[]): void {
    const insert = this.db.prepare('insert into docs (id, title, body, year) values (?, ?, ?, ?)');
    this.db.transaction((batch: ReferenceDocument[]) => {
      for (const d of batch) insert.run(d.id, d.title, d.text, d.metadata.year);
    })(documents);
  }

  /** The page's ids, best first, with a snippet of the body as Tessera's response has. */
  search(q: ReferenceQuery, limit: number): string[] {
    const columns = "id, title, snippet(docs, 2, '<mark>', '</mark>', '…', 24) as snippet";
    if (q.exclude !== undefined && !q.words?.length && !q.phrases?.length) {
      // FTS5's NOT needs a left side: the documents not matching, in id order (Tessera's order when nothing scores).
      const rows = this.db
        .prepare(
          `select id, title from docs where rowid not in (select rowid from docs where docs match ?) order by rowid limit ?`,
        )
        .all(quote(q.exclude), limit);
      return rows.map((r) => (r as { id: string }).id);
    }
    const filter = q.minYear === undefined ? '' : ' and year >= ?';
    const params: unknown[] = [matchExpression(q), ...(q.minYear === undefined ? [] : [q.minYear]), limit];
    const rows = this.db
      .prepare(`select ${columns} from docs where docs match ?${filter} order by rank limit ?`)
      .all(...params);
    return rows.map((r) => (r as { id: string }).id);
  }

  close(): void {
    this.db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${this.file}${suffix}`, { force: true });
  }
}
