// The settings form's rules: the start command refused in the API's words, the ttl range, and
// only changed fields sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandProblem, ttlProblem, settingsChanges } from '../src/settings.js';

test('start commands: run directly, one line, no leading assignment', () => {
  assert.equal(commandProblem(''), null);
  assert.equal(commandProblem('node server.js --port 8080'), null);
  assert.equal(commandProblem('gunicorn -b 0.0.0.0:$PORT app:app'), null);
  assert.equal(commandProblem('npm start\nrm -rf /'), 'the start command must be one line');
  assert.equal(commandProblem('npm start && x'), 'the start command is run directly, not through a shell, so it cannot contain &');
  assert.equal(commandProblem("echo 'hi'"), "the start command is run directly, not through a shell, so it cannot contain '");
  assert.equal(commandProblem('ls *'), 'the start command is run directly, not through a shell, so it cannot contain *');
  assert.equal(commandProblem('  NODE_ENV=production node app.js'),
    'the start command is run directly, so it cannot begin with an assignment like NAME=value; set a secret instead');
  assert.equal(commandProblem('node --x=1 app.js'), null);
  assert.equal(commandProblem('=x node'), null);
});

test('cache ttl: a whole number from 0 to a year', () => {
  assert.equal(ttlProblem('0'), null);
  assert.equal(ttlProblem(' 31536000 '), null);
  assert.equal(ttlProblem('31536001'), 'cache_ttl must be between 0 and 31536000');
  assert.equal(ttlProblem('-1'), 'cache_ttl must be between 0 and 31536000');
  assert.equal(ttlProblem('1.5'), 'cache_ttl must be between 0 and 31536000');
  assert.equal(ttlProblem(''), 'cache_ttl must be between 0 and 31536000');
});

test('only what changed is sent', () => {
  const p = { region: 'us-central', cmd: '', ignore_dockerfile: false, cache_enabled: true, cache_ttl: 60 };
  assert.equal(settingsChanges(p, { ...p, cache_ttl: '60' }), null);
  assert.deepEqual(settingsChanges(p, { ...p, region: 'eu-west', cache_ttl: '120' }), { region: 'eu-west', cache_ttl: 120 });
  assert.deepEqual(settingsChanges({ ...p, cmd: 'node a.js' }, { ...p, cmd: '', cache_ttl: 60 }), { cmd: '' });
  assert.deepEqual(settingsChanges(p, { ...p, ignore_dockerfile: true, cache_enabled: false }),
    { ignore_dockerfile: true, cache_enabled: false });
});
