// App templates: the installers' forms checked with their own rules and words, the body sent,
// and an install followed from its 202 to its end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formOf, formProblems, installBody, jsonBody, installState, wordpressEmail, scheduleLine } from '../src/templates.js';

test('the content-management form: e-mail and password required, title and user optional', () => {
  const form = formOf('wordpress');
  assert.deepEqual(form.map((f) => [f.name, f.required]), [['email', true], ['password', true], ['title', false], ['user', false]]);
  assert.deepEqual(formProblems(form, {}), { email: 'missing field: email', password: 'missing field: password' });
  assert.deepEqual(formProblems(form, { email: 'ann@example.com', password: 'short' }), { password: 'password must be at least 8 characters' });
  assert.deepEqual(formProblems(form, { email: 'ann', password: ' abcdefgh' }), {
    email: 'email must be an e-mail address such as ann@example.com (6 to 100 characters)',
    password: 'password must not start or end with white space (WordPress would cut it off)',
  });
  assert.deepEqual(formProblems(form, { email: 'ann@example.com', password: 'correct horse', title: 'a\nb', user: 'ann smith' }), {
    title: 'title must be 1 to 200 characters on one line',
    user: "user must be 1 to 60 characters of letters, digits, '_', '-', '.' and '@'",
  });
  assert.deepEqual(formProblems(form, { email: 'ann@example.com', password: 'correct horse' }), {});
});

test('empty optional fields are left out, so the installer uses its defaults (user admin)', () => {
  const form = formOf('wordpress');
  assert.deepEqual(installBody(form, { email: 'ann@example.com', password: 'correct horse', title: '', user: '' }),
    { email: 'ann@example.com', password: 'correct horse' });
});

test('the workflow installer takes no body; an unknown one a JSON object', () => {
  assert.deepEqual(formOf('n8n'), []);
  assert.equal(installBody(formOf('n8n'), {}), null);
  assert.equal(formOf('someone-elses'), null);
  assert.deepEqual(jsonBody(''), { body: null });
  assert.deepEqual(jsonBody('{"a": 1}'), { body: { a: 1 } });
  assert.deepEqual(jsonBody('[1]'), { problem: 'the body must be a JSON object' });
  assert.match(jsonBody('{a').problem, /^the body is not valid JSON/);
});

test("WordPress's e-mail rules", () => {
  assert.ok(wordpressEmail('ann@example.com'));
  assert.ok(wordpressEmail("o'brien+x@mail.example.org"));
  assert.ok(!wordpressEmail('a@b.c')); // under 6 characters
  assert.ok(!wordpressEmail('ann@example'));
  assert.ok(!wordpressEmail('ann@-example.com'));
  assert.ok(!wordpressEmail('ann@example..com'));
  assert.ok(!wordpressEmail('an n@example.com'));
});

test('an install followed: 202 installing with progress, then installed with what it made, or failed', () => {
  assert.deepEqual(installState({ project: 'p', template: 'wordpress', status: 'installing', progress: 'building PHP', status_url: '/x' }),
    { state: 'installing', progress: 'building PHP' });
  const answer = { project: { name: 'p' }, template: 'n8n', schedules: [{ name: 'prune', spec: '0 3 * * *', path: '/prune' }], secrets: ['N8N_ENCRYPTION_KEY'] };
  assert.deepEqual(installState(answer), { state: 'installed', project: { name: 'p' }, schedules: answer.schedules, secrets: ['N8N_ENCRYPTION_KEY'] });
  assert.deepEqual(installState({ status: 'installed', answer }).secrets, ['N8N_ENCRYPTION_KEY']);
  assert.deepEqual(installState({ status: 'failed', error: 'the build failed' }), { state: 'failed', error: 'the build failed' });
  assert.equal(scheduleLine(answer.schedules[0]), 'prune: 0 3 * * * /prune');
});
