import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, errorFromAnswer, formatApiError, parseRetryAfter, isSignedOut } from '../src/errors.js';

test('409 of a name clash names the free name the API suggests', () => {
  const err = errorFromAnswer(409, '{"error":"you already have a project called blog","suggestion":"blog-2"}');
  assert.equal(err.suggestion, 'blog-2');
  assert.equal(formatApiError(err), 'You already have a project called blog. "blog-2" is free.');
});

test('409 without a suggestion is the text alone', () => {
  const err = errorFromAnswer(409, '{"error":"a token named ci already exists"}');
  assert.equal(formatApiError(err), 'A token named ci already exists.');
});

test('429 says how long to wait, from Retry-After', () => {
  const err = errorFromAnswer(429, '{"error":"too many failed sign-in attempts; try again later"}', '42');
  assert.equal(err.retryAfter, 42);
  assert.equal(formatApiError(err), 'Too many failed sign-in attempts; try again later. Try again in 42 seconds.');
  const slow = errorFromAnswer(429, '{"error":"Projects are being created too quickly on this account. Wait a moment and try again."}', '125');
  assert.equal(formatApiError(slow), 'Projects are being created too quickly on this account. Wait a moment and try again. Try again in 3 minutes.');
  const noWait = errorFromAnswer(429, '{"error":"slow down"}', null);
  assert.equal(formatApiError(noWait), 'Slow down.');
});

test('403 gives the reason in the API\'s words', () => {
  const err = errorFromAnswer(403, '{"error":"your plan (free) allows 3 projects; delete one or move to a larger plan"}');
  assert.equal(formatApiError(err), 'Refused: your plan (free) allows 3 projects; delete one or move to a larger plan.');
});

test('501 for secrets without a key says what the operator must do', () => {
  const err = errorFromAnswer(501, '{"error":"secrets are not configured on this server"}');
  const text = formatApiError(err);
  assert.match(text, /^Secrets are not configured on this server: this server has no secrets key/);
  assert.match(text, /projects\.secrets_key_file/);
});

test('plain-text 415 and 422 answers are shown as they are', () => {
  assert.equal(formatApiError(errorFromAnswer(422, 'missing field: name')), 'Missing field: name.');
  assert.equal(formatApiError(errorFromAnswer(415, 'Content-Type must be application/json')),
    'Content-Type must be application/json.');
});

test('an answer that says nothing still says its status', () => {
  assert.equal(formatApiError(errorFromAnswer(502, '<html>bad gateway</html>')),
    'The server answered 502 without saying why.');
  assert.equal(formatApiError(errorFromAnswer(500, '')), 'The server answered 500 without saying why.');
});

test('network failures and other throwables', () => {
  const err = new ApiError({ status: 0, error: 'Failed to fetch' });
  assert.match(formatApiError(err), /^Could not reach berthd: Failed to fetch/);
  assert.equal(formatApiError(new Error('boom')), 'boom');
});

test('401 means signed out', () => {
  assert.ok(isSignedOut(errorFromAnswer(401, '{"error":"your session has ended; sign in again"}')));
  assert.ok(!isSignedOut(errorFromAnswer(403, '{"error":"no"}')));
});

test('Retry-After is whole seconds or nothing', () => {
  assert.equal(parseRetryAfter('7'), 7);
  assert.equal(parseRetryAfter(' 60 '), 60);
  assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT'), null);
  assert.equal(parseRetryAfter(null), null);
  assert.equal(parseRetryAfter(''), null);
});
