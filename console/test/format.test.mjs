import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBytes, formatAge, filterProjects, codeFromFragment, parseRoute } from '../src/format.js';

test('formatBytes', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1536), '1.5 KB');
  assert.equal(formatBytes(25 * 1024 * 1024), '25 MB');
});

test('formatAge', () => {
  assert.equal(formatAge(1000, 1030), 'just now');
  assert.equal(formatAge(1000, 1000 + 300), '5 min ago');
  assert.equal(formatAge(1000, 1000 + 2 * 86400), '2 days ago');
});

test('filterProjects matches every word somewhere', () => {
  const list = [
    { name: 'blog-ann1', label: 'blog', region: 'eu-west', state: 'running', runtime: 'Node', live: { id: 'x' } },
    { name: 'shop-ann1', label: 'shop', region: 'us-central', state: 'stopped', runtime: null, live: null },
  ];
  assert.equal(filterProjects(list, '').length, 2);
  assert.deepEqual(filterProjects(list, 'eu').map((p) => p.label), ['blog']);
  assert.deepEqual(filterProjects(list, 'no release').map((p) => p.label), ['shop']);
  assert.deepEqual(filterProjects(list, 'BLOG node').map((p) => p.label), ['blog']);
  assert.deepEqual(filterProjects(list, 'blog stopped'), []);
});

test('codeFromFragment and parseRoute', () => {
  assert.equal(codeFromFragment('#code=Xq3abc'), 'Xq3abc');
  assert.equal(codeFromFragment('#/projects'), null);
  assert.deepEqual(parseRoute('#/projects/blog-ann1/deploys'), { page: 'project', name: 'blog-ann1', tab: 'deploys' });
  assert.deepEqual(parseRoute('#/projects/blog-ann1'), { page: 'project', name: 'blog-ann1', tab: 'overview' });
  assert.deepEqual(parseRoute(''), { page: 'projects' });
  assert.deepEqual(parseRoute('#/new'), { page: 'new' });
  assert.deepEqual(parseRoute('#/account'), { page: 'account' });
  assert.deepEqual(parseRoute('#/deploys'), { page: 'deploys' });
  assert.deepEqual(parseRoute('#/projects/blog-ann1/database/my%20notes'),
    { page: 'project', name: 'blog-ann1', tab: 'database', sub: 'my notes' });
  assert.deepEqual(parseRoute('#/templates'), { page: 'templates', slug: null });
  assert.deepEqual(parseRoute('#/templates/wordpress'), { page: 'templates', slug: 'wordpress' });
});
