// The row grid's requests, in the rows API's own grammar (GET|POST|PATCH|DELETE
// /projects/{name}/tables/{table}/rows; plugins/sqlconsole/README.md, "The query"): filters
// `column=[not.]op.value`, `order`, `select` with embedded tables through declared foreign keys,
// `limit` and `offset`; a row named by its primary key for an edit or a delete. And how a cell's
// value is shown and typed back. Pure: node --test runs it (console/test/rows.test.mjs).

// The operators of the grammar, with a few words each for the filter's menu.
export const OPERATORS = [
  ['eq', 'equals'],
  ['neq', 'is not'],
  ['gt', '>'],
  ['gte', '≥'],
  ['lt', '<'],
  ['lte', '≤'],
  ['like', 'like (* any text)'],
  ['ilike', 'ilike (any case)'],
  ['match', 'matches regex'],
  ['imatch', 'matches regex (any case)'],
  ['in', 'one of (a, b, c)'],
  ['is', 'is null / not_null / true / false / unknown'],
  ['isdistinct', 'is distinct from'],
  ['fts', 'full-text search'],
  ['plfts', 'plain text search'],
  ['phfts', 'phrase search'],
  ['wfts', 'web search'],
  ['cs', 'contains'],
  ['cd', 'contained in'],
  ['ov', 'overlaps'],
  ['sl', 'strictly left of'],
  ['sr', 'strictly right of'],
  ['nxr', 'not extending right of'],
  ['nxl', 'not extending left of'],
  ['adj', 'adjacent to'],
];
const OPERATOR_NAMES = new Set(OPERATORS.map(([op]) => op));
const IS_VALUES = new Set(['null', 'not_null', 'true', 'false', 'unknown']);
const TEXT_SEARCH = new Set(['fts', 'plfts', 'phfts', 'wfts']);

// The grammar reads a name bare when it is letters, digits, _ and $ (and any non-ASCII
// character); anything else goes in double quotes, with \" and \\ inside.
export function quoteName(name) {
  return /^[A-Za-z0-9_$\u0080-\uffff]+$/.test(name) ? name : quoted(name);
}

// A value in double quotes, as a list item or a value inside an and/or group.
export function quoted(value) {
  return `"${String(value).replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

// "a, b, c" typed for `in`: the items, trimmed; an item may be typed "in quotes" to hold a comma.
export function listItems(text) {
  const items = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|([^,]*))\s*(?:,|$)/gy;
  const source = String(text);
  let m;
  while (re.lastIndex < source.length && (m = re.exec(source))) {
    if (m[1] !== undefined) items.push(m[1].replace(/\\(.)/g, '$1'));
    else items.push(m[2].trim());
    if (m[0] === '') break;
  }
  return items;
}

// Why a filter cannot be sent yet (said next to it), or null. {column, op, value, negate, language}
export function filterProblem(f) {
  if (!f.column) return 'choose a column';
  if (!OPERATOR_NAMES.has(f.op)) return `unknown operator ${f.op}`;
  if (f.op === 'is' && !IS_VALUES.has(String(f.value).trim().toLowerCase()))
    return 'is takes null, not_null, true, false or unknown';
  if (f.op === 'in' && listItems(f.value).some((i) => i === '')) return 'an item of the list is empty; write "" for an empty text';
  return null;
}

// One filter as [key, value] of the query string.
export function filterParam(f) {
  const not = f.negate ? 'not.' : '';
  let value = String(f.value ?? '');
  if (f.op === 'in') value = `(${listItems(value).map(quoted).join(',')})`;
  else if (f.op === 'is') value = value.trim().toLowerCase();
  const op = TEXT_SEARCH.has(f.op) && f.language ? `${f.op}(${f.language})` : f.op;
  return [quoteName(f.column), `${not}${op}.${value}`];
}

// The select list: every column of the table, then each embed chosen. An embed is
// {table, hint, many}: a many-to-one link (a column of this table pointing at another) embeds
// the row it points to; a one-to-many link (another table's column pointing here) its rows.
// The hint (the key's column, or for one-to-many the constraint's column on the other table)
// says which key when two link the same tables.
export function selectParam(embeds = []) {
  if (!embeds.length) return null;
  const parts = ['*'];
  for (const e of embeds) {
    const alias = embedAlias(e);
    parts.push(`${quoteName(alias)}:${quoteName(e.table)}!${quoteName(e.hint)}(*)`);
  }
  return parts.join(',');
}

// The key an embed has in each row, unique per link: `customer_id__customers` for the row a
// column points to, `orders__customer_id` for the rows pointing here.
export function embedAlias(e) {
  return e.many ? `${e.table}__${e.hint}` : `${e.hint}__${e.table}`;
}

// The embeds a table offers, from GET /tables: its own links (many-to-one) and the links of
// other tables pointing at it (one-to-many).
export function embedsOf(tables, tableName) {
  const out = [];
  const table = tables.find((t) => t.name === tableName);
  if (!table) return out;
  for (const l of table.links || []) out.push({ table: l.table, hint: l.column, many: false, label: `${l.column} → ${l.table}.${l.to}` });
  for (const t of tables) {
    for (const l of t.links || []) {
      // A table pointing at itself would need the constraint's name, which /tables does not
      // give, to embed the rows pointing at a row; its many-to-one side is offered above.
      if (l.table === tableName && t.name !== tableName) out.push({ table: t.name, hint: l.column, many: true, label: `${t.name}.${l.column} → ${l.to} (its rows)` });
    }
  }
  return out;
}

// The whole query string of a page: filters, order, select, limit, offset. `order` is
// [{column, desc}].
export function rowsQuery({ filters = [], order = [], embeds = [], limit = 50, offset = 0 } = {}) {
  const params = new URLSearchParams();
  const select = selectParam(embeds);
  if (select) params.append('select', select);
  for (const f of filters) {
    if (filterProblem(f)) continue;
    const [k, v] = filterParam(f);
    params.append(k, v);
  }
  if (order.length) params.append('order', order.map((o) => `${quoteName(o.column)}.${o.desc ? 'desc' : 'asc'}`).join(','));
  params.append('limit', String(limit));
  params.append('offset', String(offset));
  return params.toString();
}

// Clicking a column's header: ascending, then descending, then not ordered by it.
export function nextOrder(order, column) {
  const current = order.find((o) => o.column === column);
  if (!current) return [{ column, desc: false }];
  if (!current.desc) return [{ column, desc: true }];
  return [];
}

export function primaryKey(table) {
  return (table.columns || []).filter((c) => c.primary_key).map((c) => c.name);
}

// A value of the row as the filter grammar wants it: text, as PostgreSQL parses it for the
// column's type.
function keyText(value) {
  if (value === null || value === undefined) return null;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

// The filters that name these rows by their primary key, as a query string: one row
// `id=eq.7`; several `id=in.("7","9")`; a key of several columns `or=(and(a.eq."1",b.eq."x"),...)`.
export function rowsByKey(key, rows) {
  if (!key.length) throw new Error('a table without a primary key cannot name a row');
  if (!rows.length) throw new Error('no rows chosen');
  const params = new URLSearchParams();
  for (const r of rows) for (const k of key) if (keyText(r[k]) === null) throw new Error(`a row has no value for its key ${k}`);
  if (key.length === 1) {
    const k = key[0];
    if (rows.length === 1) params.append(quoteName(k), `eq.${keyText(rows[0][k])}`);
    else params.append(quoteName(k), `in.(${rows.map((r) => quoted(keyText(r[k]))).join(',')})`);
  } else if (rows.length === 1) {
    for (const k of key) params.append(quoteName(k), `eq.${keyText(rows[0][k])}`);
  } else {
    const groups = rows.map((r) => `and(${key.map((k) => `${quoteName(k)}.eq.${quoted(keyText(r[k]))}`).join(',')})`);
    params.append('or', `(${groups.join(',')})`);
  }
  return params.toString();
}

// How long a cell's text may be in the grid; longer values open in the side panel.
export const CELL_LIMIT = 80;

// A value as text: JSON for objects and arrays, "NULL" is not text (null is shown apart).
export function cellText(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object') return JSON.stringify(value, null, 2);
  return String(value);
}

// What the grid shows of a value: short values whole, long or many-line ones cut, with a flag
// to open the whole value in the side panel (a 5 MB text in a table cell freezes a page).
export function cellPreview(value, limit = CELL_LIMIT) {
  const text = cellText(value);
  if (text === null) return { text: null, big: false };
  const oneLine = typeof value === 'object' ? JSON.stringify(value) : text;
  const firstLine = oneLine.split('\n')[0];
  if (firstLine.length <= limit && !oneLine.includes('\n')) return { text: oneLine, big: false };
  return { text: `${firstLine.slice(0, limit)}…`, big: true };
}

const isArrayType = (type) => /\[\]$/.test(type || '');
const isJsonType = (type) => /^jsonb?$/.test(type || '');

// The value a typed text becomes for the API (POST/PATCH bodies): text goes as a JSON string,
// which PostgreSQL parses for the column's type, so numbers keep every digit and dates their
// zone; an array column takes a JSON array (the API makes the array literal); a json column
// takes the text, which PostgreSQL parses as JSON. Throws when an array's text is not JSON.
export function inputValue(text, type) {
  if (isArrayType(type)) {
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`an array column takes a JSON array, such as ["a", "b"] or [1, 2]`);
    }
    if (!Array.isArray(parsed)) throw new Error(`an array column takes a JSON array, such as ["a", "b"] or [1, 2]`);
    return parsed;
  }
  if (isJsonType(type)) {
    try {
      JSON.parse(text);
    } catch (e) {
      throw new Error(`not valid JSON: ${e.message}`);
    }
  }
  return text;
}

// The text an editor starts with for a value.
export function editText(value) {
  const text = cellText(value);
  return text === null ? '' : text;
}

// The body of an insert: the fields typed (empty ones left out, so the column takes its
// default), each converted by its column's type. `fields` is {column: text}, `nulls` the set
// of columns to set to NULL.
export function insertBody(columns, fields, nulls = new Set()) {
  const row = {};
  for (const c of columns) {
    if (nulls.has(c.name)) row[c.name] = null;
    else if (fields[c.name] !== undefined && fields[c.name] !== '') row[c.name] = inputValue(fields[c.name], c.type);
  }
  return row;
}
