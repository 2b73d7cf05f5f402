import type { CodeLanguage } from '../../shared/src/code-analysis';

/** A realistic function per language (branches, loops, calls, strings), repeated into a file of `lines` lines. */
const TEMPLATES: Record<CodeLanguage, { head?: string; fn: string; tail?: string }> = {
  python: {
    head: 'import os\n\n',
    fn: `def handler_N(items, limit=10):
    """Process items."""
    total = 0
    for item in items:
        if item.get("ok") and item["value"] > limit:
            total += item["value"]
        elif item.get("skip"):
            continue
        else:
            total -= 1
    return total if total > 0 else None

`,
  },
  javascript: {
    fn: `function handlerN(items, limit = 10) {
  let total = 0;
  for (const item of items) {
    if (item.ok && item.value > limit) {
      total += item.value;
    } else if (item.skip) {
      continue;
    }
  }
  return total > 0 ? total : null;
}

`,
  },
  typescript: {
    fn: `export function handlerN(items: { ok: boolean; value: number }[], limit = 10): number | null {
  let total = 0;
  for (const item of items) {
    if (item.ok && item.value > limit) {
      total += item.value;
    } else if (!item.ok) {
      continue;
    }
  }
  return total > 0 ? total : null;
}

`,
  },
  tsx: {
    fn: `export function ViewN(props: { items: string[]; title?: string }) {
  const title = props.title ?? 'List';
  if (props.items.length === 0) {
    return <p>Nothing</p>;
  }
  return (
    <section>
      <h2>{title}</h2>
      <ul>{props.items.map((i) => (i ? <li key={i}>{i}</li> : null))}</ul>
    </section>
  );
}

`,
  },
  java: {
    head: 'class Handlers {\n',
    fn: `  int handlerN(java.util.List<Integer> items, int limit) {
    int total = 0;
    for (int item : items) {
      if (item > limit && item % 2 == 0) {
        total += item;
      } else if (item < 0) {
        continue;
      }
    }
    return total > 0 ? total : -1;
  }

`,
    tail: '}\n',
  },
  go: {
    head: 'package handlers\n\n',
    fn: `func handlerN(items []int, limit int) int {
	total := 0
	for _, item := range items {
		if item > limit && item%2 == 0 {
			total += item
		} else if item < 0 {
			continue
		}
	}
	return total
}

`,
  },
  c: {
    fn: `int handlerN(const int *items, int n, int limit) {
  int total = 0;
  for (int i = 0; i < n; i++) {
    if (items[i] > limit && items[i] % 2 == 0) {
      total += items[i];
    } else if (items[i] < 0) {
      continue;
    }
  }
  return total > 0 ? total : -1;
}

`,
  },
  cpp: {
    fn: `int handlerN(const std::vector<int>& items, int limit) {
  int total = 0;
  for (auto item : items) {
    if (item > limit && item % 2 == 0) {
      total += item;
    } else if (item < 0) {
      continue;
    }
  }
  return total > 0 ? total : -1;
}

`,
  },
  csharp: {
    head: 'class Handlers {\n',
    fn: `  int HandlerN(System.Collections.Generic.List<int> items, int limit) {
    var total = 0;
    foreach (var item in items) {
      if (item > limit && item % 2 == 0) {
        total += item;
      } else if (item < 0) {
        continue;
      }
    }
    return total > 0 ? total : -1;
  }

`,
    tail: '}\n',
  },
  ruby: {
    fn: `def handler_N(items, limit = 10)
  total = 0
  items.each do |item|
    if item[:ok] && item[:value] > limit
      total += item[:value]
    elsif item[:skip]
      next
    end
  end
  total.positive? ? total : nil
end

`,
  },
  php: {
    head: '<?php\n',
    fn: `function handlerN($items, $limit = 10) {
    $total = 0;
    foreach ($items as $item) {
        if ($item['ok'] && $item['value'] > $limit) {
            $total += $item['value'];
        } elseif ($item['skip']) {
            continue;
        }
    }
    return $total > 0 ? $total : null;
}

`,
  },
  rust: {
    fn: `fn handler_n_N(items: &[i64], limit: i64) -> Option<i64> {
    let mut total = 0;
    for item in items {
        if *item > limit && item % 2 == 0 {
            total += item;
        } else if *item < 0 {
            continue;
        }
    }
    if total > 0 { Some(total) } else { None }
}

`,
  },
  kotlin: {
    fn: `fun handlerN(items: List<Int>, limit: Int = 10): Int? {
    var total = 0
    for (item in items) {
        if (item > limit && item % 2 == 0) {
            total += item
        } else if (item < 0) {
            continue
        }
    }
    return if (total > 0) total else null
}

`,
  },
  swift: {
    fn: `func handlerN(items: [Int], limit: Int = 10) -> Int? {
    var total = 0
    for item in items {
        if item > limit && item % 2 == 0 {
            total += item
        } else if item < 0 {
            continue
        }
    }
    return total > 0 ? total : nil
}

`,
  },
  scala: {
    head: 'object Handlers {\n',
    fn: `  def handlerN(items: List[Int], limit: Int = 10): Option[Int] = {
    var total = 0
    for (item <- items) {
      if (item > limit && item % 2 == 0) {
        total += item
      } else if (item < 0) {
        total -= 1
      }
    }
    if (total > 0) Some(total) else None
  }

`,
    tail: '}\n',
  },
  bash: {
    fn: `handler_N() {
  local total=0
  for item in "$@"; do
    if [ "$item" -gt 10 ] && [ $((item % 2)) -eq 0 ]; then
      total=$((total + item))
    elif [ "$item" -lt 0 ]; then
      continue
    fi
  done
  echo "$total"
}

`,
  },
};

/** A syntactically valid file of about `lines` lines in the language. */
export function generateFile(language: CodeLanguage, lines = 2000): string {
  const t = TEMPLATES[language];
  const fnLines = t.fn.split('\n').length - 1;
  const count = Math.ceil((lines - 2) / fnLines);
  let body = '';
  for (let i = 0; i < count; i += 1) body += t.fn.replaceAll('N(', `${i}(`);
  return `${t.head ?? ''}${body}${t.tail ?? ''}`;
}

const EXTENSIONS: Record<CodeLanguage, string> = {
  python: 'py',
  javascript: 'js',
  typescript: 'ts',
  tsx: 'tsx',
  java: 'java',
  go: 'go',
  c: 'c',
  cpp: 'cpp',
  csharp: 'cs',
  ruby: 'rb',
  php: 'php',
  rust: 'rs',
  kotlin: 'kt',
  swift: 'swift',
  scala: 'scala',
  bash: 'sh',
};

/**
 * Where the language has a cross-file call the analysis resolves, file `i` gets a handler that passes request input
 * to the next file's query helper, and that helper (a SQL sink): one cross-file finding per file.
 */
const CROSS_FILE: Partial<
  Record<CodeLanguage, (i: number, next: number) => { head?: string; tail: string }>
> = {
  python: (i, next) => ({
    head: `from m${next} import query_${next}\n`,
    tail: `def serve_${i}():\n    query_${next}(cursor, request.args["id"])\n\n\ndef query_${i}(cur, q):\n    cur.execute("SELECT * FROM t WHERE id = " + q)\n`,
  }),
  javascript: (i, next) => ({
    head: `const m${next} = require('./m${next}');\n`,
    tail: `function serve${i}(req) {\n  m${next}.query${next}(conn, req.query.id);\n}\nfunction query${i}(conn, id) {\n  return conn.query('SELECT * FROM t WHERE id = ' + id);\n}\nmodule.exports = { query${i} };\n`,
  }),
  typescript: (i, next) => ({
    head: `import { query${next} } from './m${next}';\n`,
    tail: `export function serve${i}(req: Request) {\n  query${next}(conn, req.query.id);\n}\nexport function query${i}(conn: Pool, id: string) {\n  return conn.query('SELECT * FROM t WHERE id = ' + id);\n}\n`,
  }),
  java: (i, next) => ({
    tail: `  void serve${i}(HttpServletRequest request) throws Exception {\n    Handlers${next}.query${next}(statement, request.getParameter("id"));\n  }\n  static void query${i}(java.sql.Statement st, String id) throws Exception {\n    st.executeQuery("SELECT * FROM t WHERE id = " + id);\n  }\n`,
  }),
};

/** A project of `files` files of about `lines` lines each, named m0…m{files-1}, calling each other where modelled. */
export function generateProject(
  language: CodeLanguage,
  files = 50,
  lines = 200,
): { path: string; code: string; language: undefined }[] {
  const t = TEMPLATES[language];
  return Array.from({ length: files }, (_, i) => {
    const cross = CROSS_FILE[language]?.(i, (i + 1) % files);
    let code = generateFile(language, lines - (cross ? cross.tail.split('\n').length + 1 : 0));
    if (language === 'java') code = code.replace('class Handlers {', `class Handlers${i} {`);
    if (cross) {
      const tail = t.tail ?? '';
      const body = tail ? code.slice(0, code.length - tail.length) : code;
      code = `${cross.head ?? ''}${body}${cross.tail}${tail}`;
    }
    return { path: `src/m${i}.${EXTENSIONS[language]}`, code, language: undefined };
  });
}
