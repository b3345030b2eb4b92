// The SQL editor's routing by the API's rules: schema changes to /sql, one statement to
// /query, several to /batch; statements found as PostgreSQL's lexer finds them; the history.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  splitStatements, firstWord, isSchemaChange, isTransactionControl, routeSql, addToHistory,
  readHistory, writeHistory, historyKey, MAX_BATCH,
} from '../src/sqlroute.js';

test('a ; inside quotes, names, dollar quotes and comments does not end a statement', () => {
  assert.deepEqual(splitStatements("select 'a;b'; select 2"), ["select 'a;b'", 'select 2']);
  assert.deepEqual(splitStatements('select "x;y" from t;'), ['select "x;y" from t']);
  assert.deepEqual(splitStatements("select E'it\\'s;'; select 1"), ["select E'it\\'s;'", 'select 1']);
  assert.deepEqual(splitStatements("select 'it''s;'; select 1"), ["select 'it''s;'", 'select 1']);
  assert.deepEqual(splitStatements('create function f() returns int as $body$ select 1; $body$ language sql; select f()'),
    ['create function f() returns int as $body$ select 1; $body$ language sql', 'select f()']);
  assert.deepEqual(splitStatements('do $$ begin; end $$'), ['do $$ begin; end $$']);
  assert.deepEqual(splitStatements('select 1 -- a; comment\n; select 2 /* x; /* nested; */ y; */'),
    ['select 1 -- a; comment', 'select 2 /* x; /* nested; */ y; */']);
  // $1 is a parameter, not a dollar quote.
  assert.deepEqual(splitStatements('select $1; select 2'), ['select $1', 'select 2']);
});

test('pieces with only white space and comments are left out', () => {
  assert.deepEqual(splitStatements(' ;; -- nothing\n ; /* at all */ '), []);
  assert.deepEqual(splitStatements('select 1;;\n'), ['select 1']);
});

test('the first word, past comments and parentheses, says a schema change', () => {
  assert.equal(firstWord('  -- why\n/* c */ (select 1)'), 'select');
  assert.ok(isSchemaChange('CREATE TABLE t (id int)'));
  assert.ok(isSchemaChange('alter table t add column x int'));
  assert.ok(isSchemaChange('/* c */ drop view v'));
  assert.ok(!isSchemaChange('insert into t values (1)'));
  assert.ok(!isSchemaChange('comment on table t is $$x$$'));
  assert.ok(!isSchemaChange('grant select on t to public'));
});

test('transaction control, which /batch refuses (SAVEPOINT and ROLLBACK TO are fine)', () => {
  for (const s of ['begin', 'BEGIN WORK', 'start transaction', 'commit', 'end', 'rollback', 'abort', 'prepare transaction \'x\''])
    assert.ok(isTransactionControl(s), s);
  for (const s of ['savepoint a', 'rollback to a', 'rollback to savepoint a', 'release a', 'select 1', 'prepare q as select 1'])
    assert.ok(!isTransactionControl(s), s);
});

test('schema changes only go to /sql as written; the tables are read again', () => {
  const sql = 'create table notes (id serial primary key, body text);\ncreate index on notes (body);';
  const r = routeSql(sql);
  assert.equal(r.route, 'sql');
  assert.deepEqual(r.body, { sql });
  assert.match(r.why, /2 schema changes: \/sql runs them together in one transaction/);
  assert.equal(routeSql('drop table notes').route, 'sql');
});

test('one statement of any other kind goes to /query', () => {
  const r = routeSql('  select * from notes;  ');
  assert.equal(r.route, 'query');
  assert.deepEqual(r.body, { sql: 'select * from notes' });
});

test('several statements go to /batch, schema changes mixed in', () => {
  const r = routeSql("create table t (x int); insert into t values (1); select * from t");
  assert.equal(r.route, 'batch');
  assert.deepEqual(r.body, { statements: ['create table t (x int)', 'insert into t values (1)', 'select * from t'] });
  assert.match(r.why, /3 statements: \/batch runs them in order in one transaction/);
});

test('what the API would refuse is said first, in its words', () => {
  assert.deepEqual(routeSql(' -- only a comment ').problem, 'there is nothing to run');
  assert.equal(routeSql('select 1;'.repeat(MAX_BATCH + 1)).problem, 'at most 200 statements in one batch');
  assert.equal(routeSql('begin; insert into t values (1); commit').problem,
    'statement 1: BEGIN, COMMIT and ROLLBACK cannot be used here; the batch runs in one transaction of its own');
  assert.equal(routeSql('select 1;'.repeat(MAX_BATCH)).route, 'batch');
});

test('history: newest first, one entry per text, capped, no token kept', () => {
  let h = [];
  h = addToHistory(h, { sql: 'select 1', at: 1 });
  h = addToHistory(h, { sql: 'select 2', at: 2 });
  h = addToHistory(h, { sql: 'select 1', at: 3 });
  assert.deepEqual(h.map((e) => [e.sql, e.at]), [['select 1', 3], ['select 2', 2]]);
  const token = `bth_${'a'.repeat(40)}`;
  assert.equal(addToHistory(h, { sql: `insert into t values ('${token}')`, at: 4 }), h);
  for (let i = 0; i < 60; i++) h = addToHistory(h, { sql: `select ${i}`, at: i }, 50);
  assert.equal(h.length, 50);
});

test('history is kept per project in the storage given, and a broken entry is ignored', () => {
  const store = new Map();
  const storage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v) };
  writeHistory(storage, 'blog-ann1', [{ sql: 'select 1', at: 1 }]);
  assert.deepEqual(readHistory(storage, 'blog-ann1'), [{ sql: 'select 1', at: 1 }]);
  assert.deepEqual(readHistory(storage, 'other-ann1'), []);
  store.set(historyKey('x'), '{not json');
  assert.deepEqual(readHistory(storage, 'x'), []);
});
