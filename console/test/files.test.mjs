// Stored files: where a dropped file goes, the API's path rules in its words, and the path
// percent-encoded segment by segment in the request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanFolder, storedPath, filePathProblem } from '../src/files.js';
import { createApi } from '../src/api.js';

test('a dropped file goes under the folder typed', () => {
  assert.equal(cleanFolder(' /img//2026/ '), 'img/2026');
  assert.equal(storedPath('/img/', 'cat.png'), 'img/cat.png');
  assert.equal(storedPath('', 'cat.png'), 'cat.png');
  assert.equal(storedPath('  ', 'a b.txt'), 'a b.txt');
});

test('path rules in the API words and order', () => {
  assert.equal(filePathProblem('img/cat.png'), null);
  assert.equal(filePathProblem('docs/ünïcode file.pdf'), null);
  assert.equal(filePathProblem(''), 'a file path cannot be empty');
  assert.equal(filePathProblem('é'.repeat(513)), 'a file path can be at most 1024 bytes');
  assert.equal(filePathProblem('a\0b'), 'a file path cannot contain a NUL byte');
  assert.equal(filePathProblem('a\\b'), 'a file path cannot contain a backslash');
  assert.equal(filePathProblem('a\tb'), 'a file path cannot contain control characters');
  assert.equal(filePathProblem('a\ud800b'), 'a file path must be UTF-8 text');
  assert.equal(filePathProblem('a//b'), 'a file path cannot have empty segments (no leading, trailing or double /)');
  assert.equal(filePathProblem('/a'), 'a file path cannot have empty segments (no leading, trailing or double /)');
  assert.equal(filePathProblem('a/../b'), 'a file path cannot have . or .. segments');
});

test('the path is sent percent-encoded segment by segment, slashes kept', async () => {
  const seen = [];
  const api = createApi({
    fetch: async (url, init) => {
      seen.push([init.method, url]);
      return init.method === 'POST' ? new Response('{"path":"x"}', { status: 201 }) : new Response(null, { status: 204 });
    },
  });
  await api.uploadFile('blog-ann1', 'img/a b#?.png', new Blob(['x']));
  await api.deleteFile('blog-ann1', 'img/ü.png');
  assert.deepEqual(seen, [
    ['POST', '/projects/blog-ann1/files/img/a%20b%23%3F.png'],
    ['DELETE', '/projects/blog-ann1/files/img/%C3%BC.png'],
  ]);
});
