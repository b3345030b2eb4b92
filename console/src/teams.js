// Teams, pure: who may change a team's members (its owner and admins, as the API decides) and
// why a control is disabled, in the API's words; the slug rule of a new team.
// node --test runs it (console/test/teams.test.mjs).

export const ROLES = ['admin', 'member'];

// Why the caller cannot change the team's members, or null when it can. `role` is the
// caller's role in the team (owner, admin or member).
export function manageProblem(slug, role) {
  if (role === 'owner' || role === 'admin') return null;
  return `only the owner or an admin of the team ${slug} may change its members; you are a member`;
}

// What a manager may do to one member: the owner's role stays and the owner cannot leave.
export function memberProblem(member) {
  if (member.role === 'owner') return "the owner's role stays, and the owner cannot leave the team";
  return null;
}

// A team's slug: 4 to 12 characters of a-z and 0-9 (the account slugs' rule).
export function teamSlugProblem(slug) {
  if (!/^[a-z0-9]{4,12}$/.test(slug)) return `a slug is 4 to 12 characters of a-z and 0-9: ${slug}`;
  return null;
}
