// The account: who is signed in, its teams and their members (src/pages/teams.js), its API
// tokens (made and shown once, listed, revoked), and signing out.
import { html, useState, useEffect } from '../ui.js';
import { ErrorNote, Loading, ActionButton } from '../parts.js';
import { formatAge, formatTime } from '../format.js';
import { Teams } from './teams.js';

export function Account({ api, me, onSignOut, onChanged }) {
  const [signOutError, setSignOutError] = useState(null);
  return html`<section>
    <div class="title-bar">
      <h1>Account</h1>
      <${ActionButton} busyText="Signing out…" onError=${setSignOutError}
        action=${async () => { await api.signOut(); onSignOut(); }}>Sign out<//>
    </div>
    <${ErrorNote} error=${signOutError} />
    <dl class="facts">
      <dt>E-mail</dt><dd>${me.email}</dd>
      <dt>Slug</dt><dd><code>${me.slug}</code> (every project's name ends in it)</dd>
      <dt>Plan</dt><dd>${me.plan}: ${me.project_limit === null
        ? `${me.projects_used} ${me.projects_used === 1 ? 'project' : 'projects'}, no limit`
        : `${me.projects_used} of ${me.project_limit} projects`}</dd>
      <dt>Teams</dt><dd>${me.teams.length ? me.teams.map((t) => `${t.slug} (${t.role})`).join(', ') : html`<span class="muted">none</span>`}</dd>
    </dl>
    <${Teams} api=${api} onChanged=${onChanged} />
    <${Tokens} api=${api} />
  </section>`;
}

function Tokens({ api }) {
  const [tokens, setTokens] = useState(null);
  const [error, setError] = useState(null);
  const [made, setMade] = useState(null);
  const [createError, setCreateError] = useState(null);
  const [copied, setCopied] = useState(false);
  const reload = () => api.tokens().then(setTokens, setError);
  useEffect(() => { reload(); }, []);

  const create = async (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    setCreateError(null);
    setCopied(false);
    const days = form.elements.days.value.trim();
    try {
      const token = await api.createToken(form.elements.name.value.trim(), days ? Number(days) : null);
      form.reset();
      setMade(token);
      reload();
    } catch (err) {
      setCreateError(err);
    }
  };

  return html`<div>
    <h2>API tokens</h2>
    <p class="muted">A token acts as your account, with all its access, for scripts and the command line.</p>
    ${made && html`<div class="once" role="status">
      <p><strong>Your new token ${made.name}.</strong> Copy it now: it is shown this once and never again.</p>
      <div class="row"><code class="token" id="new-token">${made.token}</code>
        <button type="button" onClick=${async () => {
          try {
            await navigator.clipboard.writeText(made.token);
            setCopied(true);
          } catch {
            setCopied(false);
          }
        }}>${copied ? 'Copied' : 'Copy'}</button>
        <button type="button" onClick=${() => setMade(null)}>Done</button></div>
    </div>`}
    <form onSubmit=${create} class="row inline-form" autocomplete="off">
      <label for="token-name">Name</label>
      <input id="token-name" name="name" placeholder="laptop" required />
      <label for="token-days">Expires in days</label>
      <input id="token-days" name="days" type="number" min="1" max="3650" placeholder="never" />
      <button type="submit" class="primary">Make a token</button>
    </form>
    <${ErrorNote} error=${createError} />
    <${ErrorNote} error=${error} />
    ${!tokens && !error && html`<${Loading} what="tokens" />`}
    ${tokens && tokens.length === 0 && html`<p class="muted">No tokens.</p>`}
    ${tokens && tokens.length > 0 && html`<table class="list">
      <thead><tr><th>Name</th><th>Made</th><th>Expires</th><th>Last used</th><th></th></tr></thead>
      <tbody>${tokens.map((t) => html`<${TokenRow} key=${t.id} api=${api} token=${t} onRevoked=${reload} />`)}</tbody>
    </table>`}
  </div>`;
}

function TokenRow({ api, token, onRevoked }) {
  const [error, setError] = useState(null);
  const [confirming, setConfirming] = useState(false);
  return html`<tr>
    <td>${token.name}</td>
    <td>${formatTime(token.created_at)}</td>
    <td>${token.expires_at ? formatTime(token.expires_at) : html`<span class="muted">never</span>`}</td>
    <td>${token.last_used_at ? formatAge(token.last_used_at) : html`<span class="muted">never</span>`}</td>
    <td>${confirming
      ? html`<${ActionButton} kind="danger" busyText="Revoking…" onError=${setError}
          action=${async () => { await api.revokeToken(token.id); onRevoked(); }}>Revoke ${token.name} now<//>
          <button type="button" onClick=${() => setConfirming(false)}>Keep it</button>`
      : html`<button type="button" class="danger" onClick=${() => setConfirming(true)}>Revoke</button>`}
      <${ErrorNote} error=${error} /></td>
  </tr>`;
}
