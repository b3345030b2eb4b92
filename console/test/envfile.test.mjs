import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnv, secretNameProblem } from '../src/envfile.js';

const values = (r) => Object.fromEntries(r.entries.map((e) => [e.name, e.value]));

test('plain lines, comments, blanks and export', () => {
  const r = parseEnv('# a comment\n\nAPI_KEY=abc123\nexport MODE=production\nEMPTY=\nURL=https://x.test/a?b=c#frag\n');
  assert.deepEqual(values(r), { API_KEY: 'abc123', MODE: 'production', EMPTY: '', URL: 'https://x.test/a?b=c#frag' });
  assert.deepEqual(r.problems, []);
  assert.equal(r.entries[0].line, 3);
});

test('a comment after an unquoted value is dropped, spaces around it too', () => {
  assert.deepEqual(values(parseEnv('A=one two   # the first\nB = spaced ')), { A: 'one two', B: 'spaced' });
});

test('double quotes take escapes and may span lines; single quotes are literal', () => {
  const r = parseEnv('A="line1\\nline2 \\"q\\" \\\\"\nB=\'$HOME \\n #x\'\nC="multi\nline"  # note\nD=after');
  assert.deepEqual(values(r), { A: 'line1\nline2 "q" \\', B: '$HOME \\n #x', C: 'multi\nline', D: 'after' });
  assert.deepEqual(r.problems, []);
});

test('CRLF line ends', () => {
  assert.deepEqual(values(parseEnv('A=1\r\nB=2\r\n')), { A: '1', B: '2' });
});

test('names the API would refuse are reported with its words and the line', () => {
  const r = parseEnv('lower=1\nDATABASE_URL=x\nPGHOST=y\n9LIVES=z\nOK=1');
  assert.deepEqual(values(r), { OK: '1' });
  assert.deepEqual(r.problems.map((p) => p.line), [1, 2, 3, 4]);
  assert.match(r.problems[0].text, /line 1 \(lower\): a secret name is capital letters/);
  assert.match(r.problems[1].text, /set by the platform/);
});

test('a line without = and an unclosed quote are problems', () => {
  const r = parseEnv('JUSTANAME\nA="never closed\nB=2');
  assert.equal(r.problems[0].text, 'line 1 is not NAME=value');
  assert.match(r.problems[1].text, /line 2: the double quote is never closed/);
  assert.deepEqual(values(r), {});
});

test('text after a closing quote is a problem', () => {
  const r = parseEnv('A="x" y\nB=1');
  assert.deepEqual(values(r), { B: '1' });
  assert.match(r.problems[0].text, /unexpected text after the closing quote/);
});

test('a name given twice keeps the last value and says so', () => {
  const r = parseEnv('A=1\nB=2\nA=3');
  assert.deepEqual(r.entries.map((e) => [e.name, e.value]), [['B', '2'], ['A', '3']]);
  assert.match(r.problems[0].text, /line 3: A was given before; the last value is kept/);
});

test('secretNameProblem', () => {
  assert.equal(secretNameProblem('STRIPE_KEY'), null);
  assert.equal(secretNameProblem('_X1'), null);
  assert.notEqual(secretNameProblem('A'.repeat(256)), null);
  assert.notEqual(secretNameProblem('PG'), null);
});
