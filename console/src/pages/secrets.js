// Secrets: names, scope and age, never values (the API returns none). One at a time, or a whole
// .env block pasted at once, checked line by line before anything is sent.
import { html, useState, useEffect, useMemo } from '../ui.js';
import { ErrorNote, Loading, ActionButton, Note } from '../parts.js';
import { parseEnv, secretNameProblem } from '../envfile.js';
import { formatAge } from '../format.js';
import { formatApiError } from '../errors.js';

export function Secrets({ api, project }) {
  const [secrets, setSecrets] = useState(null);
  const [error, setError] = useState(null);
  const reload = () => api.secrets(project.name).then((s) => { setError(null); setSecrets(s); }, setError);
  useEffect(() => { reload(); }, [project.name]);

  // 501: the server has no secrets key; nothing here can work, so say so and stop.
  if (error && error.status === 501) return html`<div><${ErrorNote} error=${error} /></div>`;
  return html`<div>
    <p class="warning">Setting or removing a secret restarts the app, so that it starts with the new values.
      Values are stored encrypted and never shown again, here or by the API.</p>
    <${ErrorNote} error=${error} />
    ${!secrets && !error && html`<${Loading} what="secrets" />`}
    ${secrets && secrets.length === 0 && html`<p class="muted">No secrets yet.</p>`}
    ${secrets && secrets.length > 0 && html`<table class="list">
      <thead><tr><th>Name</th><th>Scope</th><th>Set</th><th></th></tr></thead>
      <tbody>${secrets.map((s) => html`<${SecretRow} key=${s.name} api=${api} project=${project} secret=${s} onRemoved=${reload} />`)}</tbody>
    </table>`}
    <div class="two-columns">
      <${OneSecret} api=${api} project=${project} onSet=${reload} />
      <${EnvBlock} api=${api} project=${project} onSet=${reload} />
    </div>
  </div>`;
}

function SecretRow({ api, project, secret, onRemoved }) {
  const [error, setError] = useState(null);
  return html`<tr>
    <td><code>${secret.name}</code></td>
    <td>${secret.scope}</td>
    <td>${formatAge(secret.updated_at)}</td>
    <td><${ActionButton} kind="danger" busyText="Removing…" onError=${setError}
      action=${async () => { await api.deleteSecret(project.name, secret.name); onRemoved(); }}>Remove<//>
      <${ErrorNote} error=${error} /></td>
  </tr>`;
}

function ScopeSelect({ id, value, onChange }) {
  return html`<select id=${id} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
    <option value="runtime">runtime: the running app</option>
    <option value="build">build: the build step only</option>
    <option value="both">both</option>
  </select>`;
}

function OneSecret({ api, project, onSet }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState('runtime');
  const [error, setError] = useState(null);
  const [done, setDone] = useState('');
  const problem = name ? secretNameProblem(name) : null;
  const submit = async (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    setError(null);
    setDone('');
    try {
      await api.setSecret(project.name, name, form.elements.value.value, scope);
      form.elements.value.value = '';
      setDone(name);
      setName('');
      onSet();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form onSubmit=${submit} autocomplete="off" class="panel">
    <h2>Set a secret</h2>
    <label for="secret-name">Name</label>
    <input id="secret-name" value=${name} spellcheck=${false} placeholder="STRIPE_KEY"
      onInput=${(e) => setName(e.currentTarget.value)} />
    ${problem && html`<p class="field-note bad">${problem}</p>`}
    <label for="secret-value">Value</label>
    <input id="secret-value" name="value" type="password" autocomplete="new-password" />
    <label for="secret-scope">Scope</label>
    <${ScopeSelect} id="secret-scope" value=${scope} onChange=${setScope} />
    <${ErrorNote} error=${error} />
    ${done && html`<${Note}>${done} is set; the app restarts with it.<//>`}
    <button type="submit" class="primary" disabled=${!name || problem}>Set secret</button>
  </form>`;
}

function EnvBlock({ api, project, onSet }) {
  const [text, setText] = useState('');
  const [scope, setScope] = useState('runtime');
  const [results, setResults] = useState([]); // [{name, error}]
  const parsed = useMemo(() => parseEnv(text), [text]);
  const submit = async (e) => {
    e.preventDefault();
    const out = [];
    for (const entry of parsed.entries) {
      try {
        await api.setSecret(project.name, entry.name, entry.value, scope);
        out.push({ name: entry.name, error: null });
      } catch (err) {
        out.push({ name: entry.name, error: err });
      }
    }
    setResults(out);
    if (out.every((r) => !r.error)) setText('');
    onSet();
  };
  const n = parsed.entries.length;
  return html`<form onSubmit=${submit} class="panel">
    <h2>Paste a .env block</h2>
    <label for="env-block">NAME=value lines</label>
    <textarea id="env-block" rows="6" spellcheck=${false} value=${text} placeholder=${'API_KEY=...\nMODE=production'}
      onInput=${(e) => { setText(e.currentTarget.value); setResults([]); }}></textarea>
    ${n > 0 && html`<p class="field-note">${n === 1 ? '1 secret' : `${n} secrets`} to set:${' '}
      ${parsed.entries.map((e) => e.name).join(', ')}</p>`}
    ${parsed.problems.map((p) => html`<p class="field-note bad">${p.text}</p>`)}
    <label for="env-scope">Scope</label>
    <${ScopeSelect} id="env-scope" value=${scope} onChange=${setScope} />
    ${results.map((r) => r.error
      ? html`<p class="error" role="alert"><code>${r.name}</code>: ${formatApiError(r.error)}</p>`
      : html`<p class="field-note good"><code>${r.name}</code> is set.</p>`)}
    <button type="submit" class="primary" disabled=${n === 0}>${n === 0 ? "Set secrets" : n === 1 ? "Set 1 secret" : `Set ${n} secrets`}</button>
  </form>`;
}
