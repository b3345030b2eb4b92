// The Logs page's pure logic: kinds (a schedule's request counts as a schedule line), filters,
// following by cursor, and the copied text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kindOf, filterLogs, mergeLogs, logLine, logText, KINDS } from '../src/logs.js';

const sid = 'a'.repeat(48);
const entry = (cursor, over = {}) => ({
  at: 1772000000 + Number(cursor), kind: 'request', method: 'GET', path: '/', status: 200, ms: 3, message: '', cursor: String(cursor), ...over,
});

test("a request made by a schedule is a schedule line", () => {
  assert.equal(kindOf(entry(1, { message: sid })), 'schedule');
  assert.equal(kindOf(entry(1)), 'request');
  assert.equal(kindOf(entry(1, { kind: 'process', message: 'listening' })), 'process');
  assert.equal(kindOf(entry(1, { message: 'x'.repeat(48) })), 'request');
});

test('filters by kind and status', () => {
  const all = [
    entry(1),
    entry(2, { status: 404 }),
    entry(3, { status: 502 }),
    entry(4, { message: sid, status: 500 }),
    entry(5, { kind: 'process', method: null, path: null, status: null, ms: null, message: 'hi' }),
    entry(6, { kind: 'platform', method: null, path: null, status: null, ms: null, message: 'started' }),
  ];
  const cursors = (list) => list.map((e) => e.cursor).join(',');
  assert.equal(cursors(filterLogs(all, { kinds: new Set(KINDS) })), '1,2,3,4,5,6');
  assert.equal(cursors(filterLogs(all, { kinds: new Set(['process', 'platform']) })), '5,6');
  assert.equal(cursors(filterLogs(all, { kinds: new Set(KINDS), status: 'errors' })), '2,3,4');
  assert.equal(cursors(filterLogs(all, { kinds: new Set(['request']), status: '5xx' })), '3');
  assert.equal(cursors(filterLogs(all, { kinds: new Set(KINDS), status: 'ok' })), '1');
  assert.equal(cursors(filterLogs(all, { kinds: new Set(KINDS), status: '4xx' })), '2');
});

test('following: the first page reversed, later pages appended, no repeats, the newest kept', () => {
  let lines = mergeLogs([], [entry(3), entry(2), entry(1)], { first: true });
  assert.deepEqual(lines.map((e) => e.cursor), ['1', '2', '3']);
  lines = mergeLogs(lines, [entry(3), entry(4), entry(5)]);
  assert.deepEqual(lines.map((e) => e.cursor), ['1', '2', '3', '4', '5']);
  lines = mergeLogs(lines, [entry(6)], { keep: 3 });
  assert.deepEqual(lines.map((e) => e.cursor), ['4', '5', '6']);
});

test('text for copy and download', () => {
  assert.equal(logLine(entry(0, { at: 1772000000, path: '/a?b=1', status: 404, ms: 12 })),
    '2026-02-25 06:13:20 request GET /a?b=1 404 12ms');
  assert.equal(logLine(entry(0, { at: 1772000000, kind: 'process', method: null, path: null, status: null, ms: null, message: 'listening on 8080' })),
    '2026-02-25 06:13:20 process listening on 8080');
  assert.equal(logText([]), '');
  assert.equal(logText([entry(1), entry(2)]).split('\n').length, 3);
});
