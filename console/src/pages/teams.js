// The Account page's teams: the caller's teams with its role and the team's plan, each team's
// members, a new team (the caller becomes its owner), and for the owner and admins adding a
// member by e-mail, changing a role and removing a member. A plain member sees the controls
// disabled with the reason; whatever the API refuses anyway is shown in its words.
import { html, useState, useEffect } from '../ui.js';
import { ErrorNote, Loading, ActionButton, Note } from '../parts.js';
import { ROLES, manageProblem, memberProblem, teamSlugProblem } from '../teams.js';

export function Teams({ api, onChanged }) {
  const [teams, setTeams] = useState(null);
  const [error, setError] = useState(null);
  const reload = () => api.teams().then((t) => { setError(null); setTeams(t); }, setError);
  useEffect(() => { reload(); }, []);
  return html`<div>
    <h2>Teams</h2>
    <p class="muted">A team owns projects together: its members reach every project of the team. Owners and admins manage
      the members; a project goes to a team when it is made (New project, Owner).</p>
    <${NewTeam} api=${api} onMade=${() => { reload(); onChanged && onChanged(); }} />
    <${ErrorNote} error=${error} />
    ${!teams && !error && html`<${Loading} what="teams" />`}
    ${teams && teams.length === 0 && html`<p class="muted">You are in no team.</p>`}
    ${teams && teams.map((t) => html`<${Team} key=${t.slug} api=${api} team=${t} />`)}
  </div>`;
}

function NewTeam({ api, onMade }) {
  const [slug, setSlug] = useState('');
  const [error, setError] = useState(null);
  const [made, setMade] = useState('');
  const problem = slug ? teamSlugProblem(slug) : null;
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    setMade('');
    try {
      const team = await api.createTeam(slug);
      setMade(team.slug);
      setSlug('');
      onMade();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="row inline-form" onSubmit=${submit} autocomplete="off">
    <label for="team-slug">New team</label>
    <input id="team-slug" value=${slug} spellcheck=${false} placeholder="acme" onInput=${(e) => setSlug(e.currentTarget.value.trim())} />
    <button type="submit" class="primary" disabled=${!slug || problem}>Make the team</button>
    ${problem && html`<span class="field-note bad">${problem}</span>`}
    <${ErrorNote} error=${error} />
    ${made && html`<${Note}>The team ${made} is made; you are its owner.<//>`}
  </form>`;
}

function Team({ api, team }) {
  const [members, setMembers] = useState(null);
  const [error, setError] = useState(null);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [addError, setAddError] = useState(null);
  const cannot = manageProblem(team.slug, team.role);
  const reload = () => api.members(team.slug).then((m) => { setError(null); setMembers(m); }, setError);
  useEffect(() => { reload(); }, [team.slug]);

  const add = async (e) => {
    e.preventDefault();
    setAddError(null);
    try {
      setMembers(await api.setMember(team.slug, email.trim(), role));
      setEmail('');
    } catch (err) {
      setAddError(err);
    }
  };

  return html`<article class="panel team" aria-label=${`Team ${team.slug}`}>
    <h3>${team.slug} <span class="tag">${team.plan}</span> <span class="muted small">you are its ${team.role}</span></h3>
    ${cannot && html`<p class="field-note muted small">${cannot[0].toUpperCase() + cannot.slice(1)}: the controls are disabled.</p>`}
    <${ErrorNote} error=${error} />
    ${!members && !error && html`<${Loading} what="members" />`}
    ${members && html`<table class="list">
      <thead><tr><th>Member</th><th>Role</th><th></th></tr></thead>
      <tbody>${members.map((m) => html`<${MemberRow} key=${m.account} api=${api} team=${team} member=${m}
        cannot=${cannot} onChanged=${setMembers} onRemoved=${reload} />`)}</tbody>
    </table>`}
    <form class="row inline-form" onSubmit=${add} autocomplete="off">
      <label for=${`add-${team.slug}`}>Add a member</label>
      <input id=${`add-${team.slug}`} type="email" value=${email} placeholder="bo@example.com" disabled=${!!cannot}
        title=${cannot || ''} onInput=${(e) => { setEmail(e.currentTarget.value); setAddError(null); }} />
      <select aria-label="Role of the new member" value=${role} disabled=${!!cannot} onChange=${(e) => setRole(e.currentTarget.value)}>
        ${ROLES.map((r) => html`<option value=${r}>${r}</option>`)}</select>
      <button type="submit" disabled=${!!cannot || !email.trim()} title=${cannot || ''}>Add</button>
    </form>
    <p class="muted small">The e-mail must be that of an existing Berth account.</p>
    <${ErrorNote} error=${addError} />
  </article>`;
}

function MemberRow({ api, team, member, cannot, onChanged, onRemoved }) {
  const [error, setError] = useState(null);
  const fixed = memberProblem(member);
  const why = cannot || fixed || '';
  return html`<tr>
    <td>${member.email}</td>
    <td>${fixed
      ? html`<span>owner</span>`
      : html`<select aria-label=${`Role of ${member.email}`} value=${member.role} disabled=${!!cannot} title=${why}
          onChange=${async (e) => {
            const next = e.currentTarget.value;
            setError(null);
            try {
              onChanged(await api.setMember(team.slug, member.email, next));
            } catch (err) {
              setError(err);
            }
          }}>${ROLES.map((r) => html`<option value=${r}>${r}</option>`)}</select>`}</td>
    <td>${!fixed && html`<${ActionButton} kind="danger" busyText="Removing…" disabled=${!!cannot} title=${why} onError=${setError}
        action=${async () => { await api.removeMember(team.slug, member.account); onRemoved(); }}>Remove<//>`}
      <${ErrorNote} error=${error} /></td>
  </tr>`;
}
