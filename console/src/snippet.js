// The Data API page's ready-to-paste code: `fetch` against the project's own address
// (`<project url>/_data/<table>`) with the publishable key in the `apikey` header, one request
// for each operation the table is open to. The key is public by design (it ships in web pages
// and grants only what the settings open), so it is written into the snippet.
// Pure: node --test runs it (console/test/snippet.test.mjs).

// JavaScript string literal in single quotes.
function js(text) {
  return `'${String(text).replace(/[\\']/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}'`;
}

// The table's address on the project's host: the name percent-encoded as one path segment.
export function dataUrl(projectUrl, table, query = '') {
  const base = String(projectUrl).replace(/\/+$/, '');
  return `${base}/_data/${encodeURIComponent(table)}${query ? `?${query}` : ''}`;
}

// Which operations are open: ['read', 'create', ...] in the grid's order.
export const OPERATIONS = ['read', 'create', 'update', 'delete'];
export function openOperations(flags) {
  return OPERATIONS.filter((op) => flags && flags[op]);
}

// The snippet for one table: a read when `read` is open (the first rows, newest key first when
// it has an `id`), then an insert, an update and a delete for the other open operations, each
// with a placeholder row and filter to change. `columns` (optional) names the table's columns
// for the placeholders.
export function fetchSnippet({ projectUrl, table, key, flags, columns = [] }) {
  const open = openOperations(flags);
  if (!open.length) return '';
  const lines = [`// ${table} on ${projectUrl}: ${open.join(', ')} with the publishable key`];
  const headers = `{ apikey: ${js(key)} }`;
  const writeHeaders = `{ apikey: ${js(key)}, 'Content-Type': 'application/json', Prefer: 'return=representation' }`;
  const filterColumn = columns.includes('id') ? 'id' : columns[0] || 'id';
  const sample = {};
  for (const c of columns.filter((c) => c !== 'id').slice(0, 2)) sample[c] = '…';
  if (!Object.keys(sample).length) sample.column = 'value';
  if (flags.read) {
    lines.push(
      `const answer = await fetch(${js(dataUrl(projectUrl, table, 'select=*&limit=20'))}, {`,
      `  headers: ${headers},`,
      '});',
      'if (!answer.ok) throw new Error((await answer.json()).error);',
      'const rows = await answer.json();',
    );
  }
  if (flags.create) {
    lines.push(
      '',
      '// Insert a row (the answer is the row as stored when read is open too).',
      `await fetch(${js(dataUrl(projectUrl, table))}, {`,
      `  method: 'POST',`,
      `  headers: ${flags.read ? writeHeaders : `{ apikey: ${js(key)}, 'Content-Type': 'application/json' }`},`,
      `  body: JSON.stringify(${JSON.stringify(sample)}),`,
      '});',
    );
  }
  if (flags.update) {
    lines.push(
      '',
      '// Change the rows the filter names (a filter is required).',
      `await fetch(${js(dataUrl(projectUrl, table, `${encodeURIComponent(filterColumn)}=eq.1`))}, {`,
      `  method: 'PATCH',`,
      `  headers: { apikey: ${js(key)}, 'Content-Type': 'application/json' },`,
      `  body: JSON.stringify(${JSON.stringify(sample)}),`,
      '});',
    );
  }
  if (flags.delete) {
    lines.push(
      '',
      '// Delete the rows the filter names (a filter is required).',
      `await fetch(${js(dataUrl(projectUrl, table, `${encodeURIComponent(filterColumn)}=eq.1`))}, {`,
      `  method: 'DELETE',`,
      `  headers: ${headers},`,
      '});',
    );
  }
  return lines.join('\n');
}
