import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createApi, uploadRelease } from '../src/api.js';
import { ApiError } from '../src/errors.js';

// A fake fetch that records each call and answers from a list.
function fakeFetch(answers) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url, ...init });
    const next = answers.shift();
    if (next instanceof Error) throw next;
    const { status = 200, body = '', headers = {} } = next;
    return {
      status,
      ok: status >= 200 && status < 300,
      headers: { get: (name) => headers[name] ?? null },
      text: async () => (typeof body === 'string' ? body : JSON.stringify(body)),
    };
  };
  return { fetch, calls };
}

test('every request rides on the cookie and says it is the console', async () => {
  const { fetch, calls } = fakeFetch([{ body: { projects: [{ name: 'a-x' }] } }]);
  const api = createApi({ fetch });
  assert.deepEqual(await api.projects(), [{ name: 'a-x' }]);
  assert.equal(calls[0].url, '/projects');
  assert.equal(calls[0].method, 'GET');
  assert.equal(calls[0].credentials, 'same-origin');
  assert.equal(calls[0].headers['X-Berth-Console'], '1');
  assert.equal(calls[0].headers.Authorization, undefined);
});

test('JSON bodies carry their Content-Type', async () => {
  const { fetch, calls } = fakeFetch([{ status: 201, body: { name: 'blog-ann1' } }]);
  const api = createApi({ fetch });
  await api.createProject('blog', 'acme');
  assert.equal(calls[0].method, 'POST');
  assert.equal(calls[0].headers['Content-Type'], 'application/json');
  assert.deepEqual(JSON.parse(calls[0].body), { name: 'blog', team: 'acme' });
});

test('a pasted token goes to POST /session once and is kept nowhere', async () => {
  const { fetch, calls } = fakeFetch([
    { status: 201, body: { account: 'a', email: 'ann@example.com' } },
    { body: { id: 'a' } },
  ]);
  const api = createApi({ fetch });
  await api.signInWithToken('bth_secret');
  await api.me();
  assert.equal(calls[0].url, '/session');
  assert.equal(calls[0].headers.Authorization, 'Bearer bth_secret');
  assert.deepEqual(JSON.parse(calls[0].body), {});
  // The next request has no Authorization: the cookie alone signs it.
  assert.equal(calls[1].headers.Authorization, undefined);
  assert.ok(!JSON.stringify(api).includes('bth_secret'));
});

test('a sign-in code is sent as {code}', async () => {
  const { fetch, calls } = fakeFetch([{ status: 201, body: {} }]);
  await createApi({ fetch }).signInWithCode('Xq3');
  assert.deepEqual(JSON.parse(calls[0].body), { code: 'Xq3' });
});

test('a refusal becomes an ApiError with the API\'s text, suggestion and wait', async () => {
  const { fetch } = fakeFetch([
    { status: 409, body: { error: 'you already have a project called blog', suggestion: 'blog-2' } },
    { status: 429, body: { error: 'too many' }, headers: { 'Retry-After': '9' } },
  ]);
  const api = createApi({ fetch });
  await assert.rejects(api.createProject('blog'), (e) => e instanceof ApiError && e.status === 409 &&
    e.suggestion === 'blog-2' && e.error === 'you already have a project called blog' && e.path === '/projects');
  await assert.rejects(api.signInWithCode('x'), (e) => e.status === 429 && e.retryAfter === 9);
});

test('204 answers null; a network failure is status 0', async () => {
  const { fetch } = fakeFetch([{ status: 204 }, new TypeError('Failed to fetch')]);
  const api = createApi({ fetch });
  assert.equal(await api.revokeToken('abc'), null);
  await assert.rejects(api.me(), (e) => e.status === 0 && e.error === 'Failed to fetch');
});

test('path parts are escaped', async () => {
  const { fetch, calls } = fakeFetch([{ body: { available: true } }, { status: 204 }]);
  const api = createApi({ fetch });
  await api.available('a b&c', 'acme');
  await api.deleteSecret('p-x', 'A/B');
  assert.equal(calls[0].url, '/projects/available?name=a%20b%26c&team=acme');
  assert.equal(calls[1].url, '/projects/p-x/secrets/A%2FB');
});

test('uploadRelease reports progress and resolves with the release', async () => {
  const seen = [];
  class FakeXHR {
    constructor() { this.upload = {}; this.headers = {}; FakeXHR.last = this; }
    open(method, path) { this.method = method; this.path = path; }
    setRequestHeader(k, v) { this.headers[k] = v; }
    getResponseHeader() { return null; }
    send(body) {
      this.body = body;
      this.upload.onprogress({ loaded: 5, total: 10, lengthComputable: true });
      this.status = 202;
      this.responseText = '{"id":"r1","status":"building"}';
      this.onload();
    }
  }
  const release = await uploadRelease('p-x', { size: 10 }, (a, b) => seen.push([a, b]), FakeXHR);
  assert.deepEqual(release, { id: 'r1', status: 'building' });
  assert.deepEqual(seen, [[5, 10]]);
  assert.equal(FakeXHR.last.path, '/projects/p-x/deploys');
  assert.equal(FakeXHR.last.headers['X-Berth-Console'], '1');
  assert.equal(FakeXHR.last.headers.Authorization, undefined);
});
