// The Data API page's fetch snippet: the project's own address, the key in the apikey header,
// one request per open operation, and code that runs as it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fetchSnippet, dataUrl, openOperations } from '../src/snippet.js';

const key = `bpk_${'A1'.repeat(16)}`;

test('the table is one percent-encoded segment under /_data on the project address', () => {
  assert.equal(dataUrl('http://blog-ann1.localhost:8080/', 'notes'), 'http://blog-ann1.localhost:8080/_data/notes');
  assert.equal(dataUrl('https://x.example', 'my table', 'select=*'), 'https://x.example/_data/my%20table?select=*');
});

test('a closed table has no snippet; an open one has a request per operation', () => {
  assert.equal(fetchSnippet({ projectUrl: 'http://p', table: 't', key, flags: {} }), '');
  assert.deepEqual(openOperations({ read: true, delete: true }), ['read', 'delete']);
  const s = fetchSnippet({ projectUrl: 'http://p.localhost', table: 'notes', key, flags: { read: true, create: true }, columns: ['id', 'body'] });
  assert.match(s, /^\/\/ notes on http:\/\/p\.localhost: read, create with the publishable key/);
  assert.ok(s.includes(`fetch('http://p.localhost/_data/notes?select=*&limit=20', {\n  headers: { apikey: '${key}' },`));
  assert.ok(s.includes("method: 'POST'"));
  assert.ok(s.includes('body: JSON.stringify({"body":"…"})'));
  assert.ok(!s.includes("method: 'PATCH'"));
  assert.ok(!s.includes("method: 'DELETE'"));
});

test('the snippet runs: it reads with fetch and the key, and the rows are in `rows`', async () => {
  const seen = [];
  const fakeFetch = async (url, init) => {
    seen.push({ url, init });
    return { ok: true, json: async () => [{ id: 1, body: 'hi' }] };
  };
  const code = fetchSnippet({ projectUrl: 'http://p.localhost', table: "it's", key, flags: { read: true, update: true, delete: true }, columns: ['id'] });
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  const rows = await new AsyncFunction('fetch', `${code}\nreturn rows;`)(fakeFetch);
  assert.deepEqual(rows, [{ id: 1, body: 'hi' }]);
  assert.equal(seen[0].url, "http://p.localhost/_data/it's?select=*&limit=20");
  assert.deepEqual(seen[0].init.headers, { apikey: key });
  assert.equal(seen[1].init.method, 'PATCH');
  assert.equal(seen[1].url, "http://p.localhost/_data/it's?id=eq.1");
  assert.equal(seen[2].init.method, 'DELETE');
});
