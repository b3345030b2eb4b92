// Drives /_data on a Berth project host with @supabase/postgrest-js, a PostgREST client no one
// here wrote, the way a web page would. Run by tests/sqlconsole/data_api_test.cpp with the
// tables and functions it sets up:
//   node drive.mjs <edge base url> <project host> <publishable key>
// Every check is an assertion: the script prints one JSON line {"ok": true, "checks": n} and
// exits 0 when all hold; otherwise it prints what failed, with every request it made, and
// exits 1.
import http from 'node:http';
import assert from 'node:assert/strict';
import { PostgrestClient } from '@supabase/postgrest-js';

const [base, projectHost, key] = process.argv.slice(2);
const requests = [];

// fetch through the edge with the project's Host header: the test's project host names do
// not resolve in DNS, so the connection goes to the edge's address and Host says which project.
function hostFetch(input, init = {}) {
  const target = new URL(typeof input === 'string' ? input : input.url);
  const headers = {};
  new Headers(init.headers || {}).forEach((value, name) => { headers[name] = value; });
  headers.host = projectHost;
  const method = init.method || 'GET';
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          requests.push(`${method} ${target.pathname}${target.search} -> ${res.statusCode} ${body.toString().slice(0, 300)}`);
          const out = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            out.set(name, Array.isArray(value) ? value.join(', ') : value);
          const noBody = [204, 205, 304].includes(res.statusCode) || method === 'HEAD';
          resolve(new Response(noBody ? null : body, { status: res.statusCode, headers: out }));
        });
      });
    req.on('error', reject);
    if (init.body !== undefined && init.body !== null) req.write(init.body);
    req.end();
  });
}

const db = new PostgrestClient(`${base}/_data`, {
  headers: { apikey: key, Authorization: `Bearer ${key}` },
  fetch: hostFetch,
});

let checks = 0;
function check(condition, what) {
  assert.ok(condition, what);
  checks++;
}
function same(actual, expected, what) {
  assert.deepStrictEqual(actual, expected, what);
  checks++;
}
function fine(result, what) {
  assert.equal(result.error, null, `${what}: ${JSON.stringify(result.error)}`);
  checks++;
}

async function main() {
  // select with filters, embedding, order (nulls last) and range
  let r = await db.from('todos').select('id,title,author:authors(name)')
    .eq('done', false).order('priority', { ascending: false, nullsFirst: false }).range(0, 1);
  fine(r, 'select page');
  same(r.status, 200, 'select status');
  same(r.data, [{ id: 4, title: 'eat', author: { name: 'Ben' } },
                { id: 1, title: 'write', author: { name: 'Ann' } }], 'select page rows');

  r = await db.from('todos').select('id').in('id', [1, 2, 99]).order('id');
  fine(r, 'in');
  same(r.data, [{ id: 1 }, { id: 2 }], 'in rows');

  r = await db.from('todos').select('title').ilike('title', '%RUN (%');
  fine(r, 'ilike');
  same(r.data, [{ title: 'walk, run (fast)' }], 'ilike with comma and parenthesis');

  r = await db.from('todos').select('id').or('priority.gt.2,and(done.eq.true,priority.lt.3)').order('id');
  fine(r, 'or');
  same(r.data, [{ id: 2 }, { id: 4 }, { id: 5 }], 'nested or/and');

  r = await db.from('todos').select('id').is('priority', null);
  same(r.data, [{ id: 3 }], 'is null');
  r = await db.from('todos').select('id').not('priority', 'is', null).neq('id', 1).order('id', { ascending: false });
  same(r.data, [{ id: 5 }, { id: 4 }, { id: 2 }], 'not is null, neq, order desc');

  r = await db.from('authors').select('name,todos(title)').eq('name', 'Ann');
  fine(r, 'one-to-many embed');
  same(r.data, [{ name: 'Ann', todos: [{ title: 'write' }, { title: 'read' }] }], 'embedded array');

  // count=exact, with and without rows (HEAD)
  r = await db.from('todos').select('*', { count: 'exact', head: true });
  fine(r, 'head count');
  same(r.count, 5, 'count of every row');
  same(r.data, null, 'head has no data');
  r = await db.from('todos').select('id', { count: 'exact' }).eq('done', true).range(0, 0);
  same(r.count, 2, 'count ignores the range');
  same(r.data.length, 1, 'range of one');

  // single and maybeSingle
  r = await db.from('todos').select('title').eq('id', 1).single();
  fine(r, 'single');
  same(r.data, { title: 'write' }, 'single object');
  r = await db.from('todos').select('title').eq('id', 999).maybeSingle();
  fine(r, 'maybeSingle');
  same(r.data, null, 'maybeSingle of nothing');
  r = await db.from('todos').select('title').single();
  same(r.status, 406, 'single of many rows');
  same(r.error.code, 'PGRST116', 'single error code');

  // insert with and without returning
  r = await db.from('todos').insert({ title: 'new', priority: 7 }).select();
  fine(r, 'insert returning');
  same(r.status, 201, 'insert status');
  same(r.data, [{ id: 6, title: 'new', done: false, priority: 7, author_id: null }], 'inserted row');
  r = await db.from('todos').insert([{ title: 'a' }, { title: 'b', done: true }]).select('title,done');
  fine(r, 'bulk insert');
  same(r.data, [{ title: 'a', done: false }, { title: 'b', done: true }], 'missing keys take defaults');
  r = await db.from('todos').insert({ title: 'quiet' });
  fine(r, 'insert minimal');
  same(r.status, 201, 'insert minimal status');
  same(r.data, null, 'insert minimal has no body');

  // update
  r = await db.from('todos').update({ done: true }).eq('id', 6).select('id,done');
  fine(r, 'update returning');
  same(r.data, [{ id: 6, done: true }], 'updated row');
  r = await db.from('todos').update({ priority: 9 }, { count: 'exact' }).in('title', ['a', 'b']);
  fine(r, 'update minimal');
  same(r.status, 204, 'update minimal status');
  same(r.count, 2, 'update count');

  // upsert (create and update both open)
  r = await db.from('todos').upsert({ id: 1, title: 'write more' }).select('id,title,done');
  fine(r, 'upsert');
  same(r.data, [{ id: 1, title: 'write more', done: false }], 'upserted row');

  // delete
  r = await db.from('todos').delete().eq('title', 'quiet').select('title');
  fine(r, 'delete returning');
  same(r.data, [{ title: 'quiet' }], 'deleted row');
  r = await db.from('todos').delete({ count: 'exact' }).in('title', ['a', 'b']);
  fine(r, 'delete minimal');
  same(r.status, 204, 'delete status');
  same(r.count, 2, 'delete count');

  // rpc: scalar, set of rows, void
  r = await db.rpc('add_them', { a: 2, b: 3 });
  fine(r, 'rpc scalar');
  same(r.data, 5, 'rpc scalar value');
  r = await db.rpc('todos_by', { who: 'Ann' });
  fine(r, 'rpc set');
  same(r.data.map((t) => t.title), ['write more', 'read'], 'rpc rows');
  r = await db.rpc('touch');
  fine(r, 'rpc void');
  same(r.status, 204, 'rpc void status');

  // refusals as a client sees them
  r = await db.from('authors').insert({ name: 'Cat' });
  same(r.status, 403, 'closed operation');
  check(r.error.message.includes('may not create rows in authors'), `closed message: ${r.error.message}`);
  r = await db.from('todos').insert({ id: 2, title: 'dup' });
  same(r.status, 409, 'duplicate key');
  same(r.error.code, '23505', 'duplicate key code');
  r = await db.rpc('secret_fn');
  same(r.status, 403, 'function not enabled');
  r = await db.from('todos').select('nope');
  same(r.status, 400, 'unknown column');
  check(r.error.message.startsWith('no column named "nope" in todos'), `unknown column message: ${r.error.message}`);

  console.log(JSON.stringify({ ok: true, checks }));
}

main().catch((error) => {
  console.log(JSON.stringify({ ok: false, checks, error: String(error && error.message || error), requests }));
  process.exit(1);
});
