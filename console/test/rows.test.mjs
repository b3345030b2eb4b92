// The row grid's requests in the rows API's grammar: filters, order, embeds, paging, rows named
// by their primary key; and a cell's value shown and typed back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  rowsQuery, filterParam, filterProblem, listItems, quoteName, quoted, nextOrder, rowsByKey, primaryKey,
  embedsOf, selectParam, cellPreview, inputValue, insertBody, editText,
} from '../src/rows.js';

const decode = (q) => [...new URLSearchParams(q)].map(([k, v]) => `${k}=${v}`);

test('filters are column=[not.]op.value, every operator as the grammar spells it', () => {
  assert.deepEqual(filterParam({ column: 'age', op: 'gte', value: '18' }), ['age', 'gte.18']);
  assert.deepEqual(filterParam({ column: 'age', op: 'eq', value: '5', negate: true }), ['age', 'not.eq.5']);
  assert.deepEqual(filterParam({ column: 'name', op: 'ilike', value: '*ann*' }), ['name', 'ilike.*ann*']);
  assert.deepEqual(filterParam({ column: 'deleted_at', op: 'is', value: ' NULL ' }), ['deleted_at', 'is.null']);
  assert.deepEqual(filterParam({ column: 'body', op: 'fts', value: 'cat', language: 'english' }), ['body', 'fts(english).cat']);
  // A value after the operator is taken whole: commas and parentheses need no quoting there.
  assert.deepEqual(filterParam({ column: 'note', op: 'eq', value: 'a,b (c)' }), ['note', 'eq.a,b (c)']);
});

test('in takes a list whose items are always quoted, so commas and quotes survive', () => {
  assert.deepEqual(listItems('1, 2 ,3'), ['1', '2', '3']);
  assert.deepEqual(listItems('"a,b", c'), ['a,b', 'c']);
  assert.deepEqual(filterParam({ column: 'id', op: 'in', value: '1, 2' }), ['id', 'in.("1","2")']);
  assert.deepEqual(filterParam({ column: 'tag', op: 'in', value: '"say \\"hi\\"", x' }), ['tag', 'in.("say \\"hi\\"","x")']);
  assert.equal(filterProblem({ column: 'id', op: 'in', value: '1,,2' }), 'an item of the list is empty; write "" for an empty text');
});

test('a filter that cannot be sent yet says why and is left out of the query', () => {
  assert.equal(filterProblem({ column: '', op: 'eq', value: '1' }), 'choose a column');
  assert.equal(filterProblem({ column: 'a', op: 'is', value: 'maybe' }), 'is takes null, not_null, true, false or unknown');
  assert.equal(filterProblem({ column: 'a', op: 'equals', value: '1' }), 'unknown operator equals');
  assert.equal(rowsQuery({ filters: [{ column: 'a', op: 'is', value: 'maybe' }] }), 'limit=50&offset=0');
});

test('names other than letters, digits, _ and $ go in double quotes', () => {
  assert.equal(quoteName('user_id'), 'user_id');
  assert.equal(quoteName('größe'), 'größe');
  assert.equal(quoteName('first name'), '"first name"');
  assert.equal(quoteName('a.b'), '"a.b"');
  assert.equal(quoted('say "hi" \\ bye'), '"say \\"hi\\" \\\\ bye"');
});

test('a page: select with embeds, filters, order, limit and offset, encoded once', () => {
  const q = rowsQuery({
    filters: [{ column: 'age', op: 'gt', value: '30' }, { column: 'age', op: 'lt', value: '60' }],
    order: [{ column: 'name', desc: false }, { column: 'created at', desc: true }],
    embeds: [{ table: 'customers', hint: 'customer_id', many: false }],
    limit: 25,
    offset: 50,
  });
  assert.deepEqual(decode(q), [
    'select=*,customer_id__customers:customers!customer_id(*)',
    'age=gt.30',
    'age=lt.60',
    'order=name.asc,"created at".desc',
    'limit=25',
    'offset=50',
  ]);
  assert.ok(q.includes('age=gt.30&age=lt.60'));
});

test('a header click orders ascending, then descending, then not at all', () => {
  let o = nextOrder([], 'a');
  assert.deepEqual(o, [{ column: 'a', desc: false }]);
  o = nextOrder(o, 'a');
  assert.deepEqual(o, [{ column: 'a', desc: true }]);
  assert.deepEqual(nextOrder(o, 'a'), []);
  assert.deepEqual(nextOrder(o, 'b'), [{ column: 'b', desc: false }]);
});

test('embeds offered: the row a key points to, and the rows of other tables pointing here', () => {
  const tables = [
    { name: 'customers', columns: [], links: [] },
    { name: 'orders', columns: [], links: [{ column: 'customer_id', table: 'customers', to: 'id' }] },
    { name: 'staff', columns: [], links: [{ column: 'boss_id', table: 'staff', to: 'id' }] },
  ];
  assert.deepEqual(embedsOf(tables, 'orders').map((e) => [e.table, e.hint, e.many]), [['customers', 'customer_id', false]]);
  assert.deepEqual(embedsOf(tables, 'customers').map((e) => [e.table, e.hint, e.many]), [['orders', 'customer_id', true]]);
  // A table pointing at itself: the row it points to only (the other way needs the key's name).
  assert.deepEqual(embedsOf(tables, 'staff').map((e) => [e.table, e.hint, e.many]), [['staff', 'boss_id', false]]);
  assert.equal(selectParam([{ table: 'orders', hint: 'customer_id', many: true }]), '*,orders__customer_id:orders!customer_id(*)');
  assert.equal(selectParam([]), null);
});

test('rows named by their primary key: eq for one, in for several, and/or for a key of several columns', () => {
  const table = { columns: [{ name: 'id', primary_key: true }, { name: 'body', primary_key: false }] };
  assert.deepEqual(primaryKey(table), ['id']);
  assert.deepEqual(decode(rowsByKey(['id'], [{ id: 7 }])), ['id=eq.7']);
  assert.deepEqual(decode(rowsByKey(['id'], [{ id: 7 }, { id: 9 }])), ['id=in.("7","9")']);
  assert.deepEqual(decode(rowsByKey(['a', 'b'], [{ a: 1, b: 'x' }])), ['a=eq.1', 'b=eq.x']);
  assert.deepEqual(decode(rowsByKey(['a', 'b'], [{ a: 1, b: 'x,y' }, { a: 2, b: 'q"' }])),
    ['or=(and(a.eq."1",b.eq."x,y"),and(a.eq."2",b.eq."q\\""))']);
  assert.throws(() => rowsByKey([], [{ id: 1 }]), /without a primary key/);
  assert.throws(() => rowsByKey(['id'], [{ id: null }]), /no value for its key id/);
});

test('big values are cut in the grid and flagged for the side panel', () => {
  assert.deepEqual(cellPreview('short'), { text: 'short', big: false });
  assert.deepEqual(cellPreview(null), { text: null, big: false });
  assert.deepEqual(cellPreview(42), { text: '42', big: false });
  const long = 'x'.repeat(5 * 1024 * 1024);
  const p = cellPreview(long);
  assert.equal(p.big, true);
  assert.equal(p.text.length, 81);
  assert.equal(cellPreview('line one\nline two').big, true);
  assert.deepEqual(cellPreview({ a: 1 }), { text: '{"a":1}', big: false });
});

test('typed values go as text (every digit kept); arrays as JSON arrays; json checked', () => {
  assert.equal(inputValue('12345678901234567890', 'bigint'), '12345678901234567890');
  assert.equal(inputValue('2024-01-02 03:04:05+02', 'timestamp with time zone'), '2024-01-02 03:04:05+02');
  assert.deepEqual(inputValue('[1, 2]', 'integer[]'), [1, 2]);
  assert.throws(() => inputValue('{1,2}', 'integer[]'), /JSON array/);
  assert.equal(inputValue('{"a": 1}', 'jsonb'), '{"a": 1}');
  assert.throws(() => inputValue('{a: 1}', 'json'), /not valid JSON/);
  assert.equal(editText(null), '');
  assert.equal(editText({ a: 1 }), '{\n  "a": 1\n}');
});

test('an insert leaves empty fields out so their defaults apply', () => {
  const columns = [{ name: 'id', type: 'integer' }, { name: 'body', type: 'text' }, { name: 'tags', type: 'text[]' }, { name: 'note', type: 'text' }];
  assert.deepEqual(insertBody(columns, { id: '', body: 'hi', tags: '["a"]' }, new Set(['note'])), { body: 'hi', tags: ['a'], note: null });
  assert.deepEqual(insertBody(columns, {}), {});
});
