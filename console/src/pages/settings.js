// Settings: region, start command (its rules explained, checked as typed with the API's words),
// the Dockerfile switch, the edge cache and its ttl: one PATCH with only what changed. Delete
// asks for the project's name to be typed first.
import { html, useState, useEffect, useMemo } from '../ui.js';
import { ErrorNote, ActionButton, Note } from '../parts.js';
import { commandProblem, ttlProblem, settingsChanges, MAX_TTL } from '../settings.js';

// Shown as text, not written into the template: htm would read < and > as tags.
const SHELL_CHARS = '| & ; < > ` ( ) \' " *';

const formOf = (p) => ({
  region: p.region,
  cmd: p.cmd,
  ignore_dockerfile: p.ignore_dockerfile,
  cache_enabled: p.cache_enabled,
  cache_ttl: String(p.cache_ttl),
});

export function Settings({ api, project, onChange }) {
  const [regions, setRegions] = useState(null);
  const [form, setForm] = useState(formOf(project));
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => { api.regions().then((r) => setRegions(r.regions), setError); }, []);
  useEffect(() => setForm(formOf(project)), [project]);

  const set = (field, value) => { setSaved(false); setForm({ ...form, [field]: value }); };
  const cmdBad = commandProblem(form.cmd);
  const ttlBad = ttlProblem(form.cache_ttl);
  const changes = useMemo(() => (ttlBad ? null : settingsChanges(project, form)), [project, form, ttlBad]);

  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await api.updateProject(project.name, changes);
      setSaved(true);
      onChange();
    } catch (err) {
      setError(err);
    }
  };

  return html`<div>
    <form class="panel" onSubmit=${submit}>
      <h2>Settings</h2>
      <label for="set-region">Region</label>
      <select id="set-region" value=${form.region} onChange=${(e) => set('region', e.currentTarget.value)}>
        ${(regions || [{ id: project.region, name: project.region, city: '' }]).map((r) => html`<option value=${r.id}>
          ${r.id}${r.name ? `: ${r.name}` : ''}${r.city ? ` (${r.city})` : ''}</option>`)}
      </select>
      <p class="field-note muted">Recorded on the project and every release; changing it does not move or restart a running app.</p>

      <label for="set-cmd">Start command</label>
      <input id="set-cmd" value=${form.cmd} spellcheck=${false} placeholder="node server.js"
        onInput=${(e) => set('cmd', e.currentTarget.value)} />
      ${cmdBad ? html`<p class="field-note bad">${cmdBad}</p>` : html`<p class="field-note muted">Used by every release that
        does not send its own. It is run directly, not through a shell: one line, none of${' '}
        <code>${SHELL_CHARS}</code>, and no leading <code>NAME=value</code> (set a secret instead).
        Empty clears it: the command is then detected from each release. Static sites do not run it.</p>`}

      <label class="check"><input type="checkbox" checked=${form.ignore_dockerfile}
        onChange=${(e) => set('ignore_dockerfile', e.currentTarget.checked)} /> Ignore the Dockerfile when building</label>
      <label class="check"><input type="checkbox" checked=${form.cache_enabled}
        onChange=${(e) => set('cache_enabled', e.currentTarget.checked)} /> Cache the app's answers at the edge</label>
      <label for="set-ttl">Cache time (seconds, for answers that do not say)</label>
      <input id="set-ttl" inputmode="numeric" value=${form.cache_ttl} onInput=${(e) => set('cache_ttl', e.currentTarget.value)} />
      ${ttlBad ? html`<p class="field-note bad">${ttlBad}</p>` : html`<p class="field-note muted">0 to ${MAX_TTL} (a year).</p>`}

      <${ErrorNote} error=${error} />
      ${saved && html`<${Note}>Saved. Nothing was restarted.<//>`}
      <button type="submit" class="primary" disabled=${!changes}>Save settings</button>
    </form>
    <${DeleteProject} api=${api} project=${project} />
  </div>`;
}

function DeleteProject({ api, project }) {
  const [typed, setTyped] = useState('');
  const [error, setError] = useState(null);
  return html`<div class="panel danger-zone">
    <h2>Delete this project</h2>
    <p>Deletes its releases, database, files, secrets, domains and schedules, and frees its name for anyone.
      This cannot be undone.</p>
    <label for="delete-name">Type <code>${project.name}</code> to confirm</label>
    <input id="delete-name" value=${typed} spellcheck=${false} autocomplete="off" onInput=${(e) => setTyped(e.currentTarget.value)} />
    <${ErrorNote} error=${error} />
    <div class="actions">
      <${ActionButton} kind="danger" busyText="Deleting…" onError=${setError} disabled=${typed !== project.name}
        action=${async () => { await api.deleteProject(project.name); location.hash = '#/projects'; }}>Delete project<//>
    </div>
  </div>`;
}
