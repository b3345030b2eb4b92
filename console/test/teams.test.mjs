// Teams: who may change members (owner and admins), the owner's row, a new team's slug.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manageProblem, memberProblem, teamSlugProblem } from '../src/teams.js';

test('owners and admins manage members; a member is told why not', () => {
  assert.equal(manageProblem('acme', 'owner'), null);
  assert.equal(manageProblem('acme', 'admin'), null);
  assert.equal(manageProblem('acme', 'member'), 'only the owner or an admin of the team acme may change its members; you are a member');
});

test("the owner's row cannot be changed or removed", () => {
  assert.match(memberProblem({ role: 'owner' }), /owner's role stays/);
  assert.equal(memberProblem({ role: 'admin' }), null);
});

test('a slug is 4 to 12 characters of a-z and 0-9', () => {
  assert.equal(teamSlugProblem('acme'), null);
  assert.equal(teamSlugProblem('acme2026team'), null);
  assert.equal(teamSlugProblem('ac'), 'a slug is 4 to 12 characters of a-z and 0-9: ac');
  assert.equal(teamSlugProblem('Acme'), 'a slug is 4 to 12 characters of a-z and 0-9: Acme');
  assert.equal(teamSlugProblem('acme-team'), 'a slug is 4 to 12 characters of a-z and 0-9: acme-team');
});
