// Where the SQL editor sends what was typed, by the API's own rules (docs/openapi.yaml;
// plugins/sqlconsole/README.md, "SQL"):
//   - /sql runs schema changes only (create, alter, drop and their kin: PostgreSQL's parser
//     classes them by their first word), all in one piece, in one implicit transaction;
//   - /query runs exactly one statement of any kind and returns up to 500 rows;
//   - /batch runs up to 200 statements, each one statement, in order in one transaction, and
//     refuses BEGIN, COMMIT and ROLLBACK (the batch is its own transaction).
// So: only schema changes → /sql (the tables are read again after); one statement → /query;
// several → /batch. Statements are found the way PostgreSQL's lexer finds them: a ; ends one
// unless it is inside '...', E'...', "...", $tag$...$tag$, a -- comment or a nested /* */ one.
// Also the editor's history (kept in the browser's localStorage: statements, never a token).
// Pure: node --test runs it (console/test/sqlroute.test.mjs).

export const MAX_BATCH = 200;
const SCHEMA_WORDS = new Set(['create', 'alter', 'drop']);

// The statements of a text, trimmed, without their ending ;. Pieces holding nothing but white
// space and comments are left out (the API ignores them too).
export function splitStatements(sql) {
  const out = [];
  const s = String(sql);
  let start = 0;
  let code = false; // the piece holds something besides white space and comments
  let i = 0;
  const n = s.length;
  const push = (end) => {
    if (code) out.push(s.slice(start, end).trim());
    start = end + 1;
    code = false;
  };
  while (i < n) {
    const c = s[i];
    const next = s[i + 1];
    if (c === '-' && next === '-') {
      while (i < n && s[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && next === '*') {
      let depth = 0;
      while (i < n) {
        if (s[i] === '/' && s[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (s[i] === '*' && s[i + 1] === '/') {
          depth--;
          i += 2;
          if (depth === 0) break;
        } else i++;
      }
      continue;
    }
    if (c === "'" || c === '"') {
      // E'...' takes backslash escapes; other strings and quoted names do not.
      const escapes = c === "'" && /[eE]$/.test(s.slice(start, i)) && !/[A-Za-z0-9_$\u0080-\uffff][eE]$/.test(s.slice(start, i));
      code = true;
      i++;
      while (i < n) {
        if (escapes && s[i] === '\\') {
          i += 2;
          continue;
        }
        if (s[i] === c) {
          if (s[i + 1] === c) {
            i += 2;
            continue;
          }
          i++;
          break;
        }
        i++;
      }
      continue;
    }
    if (c === '$') {
      const m = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(s.slice(i));
      const before = s[i - 1];
      if (m && !(before && /[A-Za-z0-9_$\u0080-\uffff]/.test(before))) {
        code = true;
        const tag = m[0];
        const end = s.indexOf(tag, i + tag.length);
        i = end === -1 ? n : end + tag.length;
        continue;
      }
    }
    if (c === ';') {
      push(i);
      i++;
      continue;
    }
    if (!/\s/.test(c)) code = true;
    i++;
  }
  if (code) out.push(s.slice(start).trim());
  return out.map((t) => t.replace(/;\s*$/, ''));
}

// The first word of a statement, lower-case, after comments and opening parentheses.
export function firstWord(statement) {
  const text = String(statement)
    .replace(/^(\s|--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/|\()*/, '');
  const m = /^[A-Za-z]+/.exec(text);
  return m ? m[0].toLowerCase() : '';
}

export function isSchemaChange(statement) {
  return SCHEMA_WORDS.has(firstWord(statement));
}

// BEGIN, START TRANSACTION, COMMIT, END, ROLLBACK (not ROLLBACK TO), ABORT and the two-phase
// commands, which /batch refuses.
export function isTransactionControl(statement) {
  const word = firstWord(statement);
  if (['begin', 'commit', 'end', 'abort'].includes(word)) return true;
  if (word === 'start') return /^\s*start\s+transaction\b/i.test(statement.replace(/^(\s|--[^\n]*\n)*/, ''));
  if (word === 'rollback') return !/^\s*rollback\s+(work\s+|transaction\s+)?to\b/i.test(statement);
  if (word === 'prepare') return /^\s*prepare\s+transaction\b/i.test(statement);
  return false;
}

// The route for a text: {route: 'sql'|'query'|'batch', body, why} or {route: null, problem}
// (the API's own words for what it would refuse).
export function routeSql(sql) {
  const statements = splitStatements(sql);
  const n = statements.length;
  if (n === 0) return { route: null, statements, problem: 'there is nothing to run' };
  if (statements.every(isSchemaChange)) {
    return {
      route: 'sql',
      statements,
      body: { sql: String(sql) },
      why: n === 1
        ? 'A schema change: /sql runs it and the tables are read again.'
        : `${n} schema changes: /sql runs them together in one transaction (if one is refused, none is kept) and the tables are read again.`,
    };
  }
  if (n === 1) {
    return {
      route: 'query',
      statements,
      body: { sql: statements[0] },
      why: 'One statement: /query runs it and shows up to 500 rows.',
    };
  }
  if (n > MAX_BATCH) return { route: null, statements, problem: `at most ${MAX_BATCH} statements in one batch` };
  const control = statements.findIndex(isTransactionControl);
  if (control !== -1) {
    return {
      route: null,
      statements,
      problem: `statement ${control + 1}: BEGIN, COMMIT and ROLLBACK cannot be used here; the batch runs in one transaction of its own`,
    };
  }
  return {
    route: 'batch',
    statements,
    body: { statements },
    why: `${n} statements: /batch runs them in order in one transaction; if one fails, none is kept.`,
  };
}

// The editor's history, newest first: at most `limit` entries, the same text only once.
export const HISTORY_LIMIT = 50;
const TOKEN = /bth_[A-Za-z0-9]{40}/;

export function historyKey(project) {
  return `berth.sql-history.${project}`;
}

export function addToHistory(history, entry, limit = HISTORY_LIMIT) {
  // A statement holding an API token is not kept: the console stores no token anywhere.
  if (TOKEN.test(entry.sql)) return history;
  const rest = history.filter((h) => h.sql !== entry.sql);
  return [entry, ...rest].slice(0, limit);
}

export function readHistory(storage, project) {
  try {
    const list = JSON.parse(storage.getItem(historyKey(project)) || '[]');
    return Array.isArray(list) ? list.filter((h) => h && typeof h.sql === 'string') : [];
  } catch {
    return [];
  }
}

export function writeHistory(storage, project, history) {
  try {
    storage.setItem(historyKey(project), JSON.stringify(history));
  } catch {
    // Full or refused storage: the history is a convenience, the query has run.
  }
}
