// index.html preloads every module of the app, so the browser fetches them side by side: with
// static imports, the first screen waits for the whole graph, and a module found only through
// another one's import costs a round trip more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const modules = (dir) => readdirSync(join(root, dir)).filter((f) => f.endsWith('.js')).map((f) => `${dir}/${f}`);

test('every module of src/, src/pages/ and vendor/ is preloaded by index.html, and nothing else', () => {
  const html = readFileSync(join(root, 'index.html'), 'utf8');
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]).sort();
  const all = [...modules('vendor'), ...modules('src'), ...modules('src/pages')].filter((m) => m !== 'src/app.js').sort();
  assert.deepEqual(preloaded, all);
  assert.match(html, /<script type="module" src="src\/app.js"><\/script>/);
  assert.doesNotMatch(html, /<script>|style=|onload=/, 'no inline script or style (the CSP refuses them)');
});
