// Schedules: each spec in plain words with its next five runs (src/cron.js, the scheduler's own
// rules), the last run's status, duration and error, the run history, pause and resume, add and
// delete. A spec is checked as it is typed, with the words the API would answer.
import { html, useState, useEffect, useMemo } from '../ui.js';
import { ErrorNote, Loading, ActionButton, Note } from '../parts.js';
import { parseCron, nextRuns, describeCron } from '../cron.js';
import { formatAge, formatTime } from '../format.js';

// The next five: from the API's next run when it gives one (so the first is exactly the
// scheduler's), else from now.
function upcoming(schedule) {
  if (!schedule.enabled) return [];
  const from = schedule.next_run_at ? schedule.next_run_at - 60 : Date.now() / 1000;
  return nextRuns(schedule.spec, from, 5);
}

function Outcome({ status, ms, error, at }) {
  if (!at) return html`<span class="muted">not run yet</span>`;
  const good = !error;
  return html`<span class=${`status ${good ? 'live' : 'failed'}`}>${status === null ? 'no answer' : status}</span>
    ${ms !== null && ms !== undefined && html` <span class="muted">${ms} ms</span>`}
    <span class="muted"> · ${formatAge(at)}</span>
    ${error && html`<div class="field-note bad">${error}</div>`}`;
}

export function Schedules({ api, project }) {
  const [schedules, setSchedules] = useState(null);
  const [error, setError] = useState(null);
  const reload = () => api.schedules(project.name).then((s) => { setError(null); setSchedules(s); }, setError);
  useEffect(() => { reload(); }, [project.name]);

  return html`<div>
    <p class="muted">A schedule sends <code>GET</code> to a path of the app at${' '}
      <code>${project.url}</code> at the times its spec names: five fields, minute hour
      day-of-month month day-of-week, always in UTC. Its runs appear in Logs as requests.</p>
    <div class="actions"><${ActionButton} busyText="Refreshing…" onError=${setError} action=${reload}>Refresh<//></div>
    <${ErrorNote} error=${error} />
    ${!schedules && !error && html`<${Loading} what="schedules" />`}
    ${schedules && schedules.length === 0 && html`<p class="muted">No schedules yet.</p>`}
    ${schedules && schedules.map((s) => html`<${ScheduleCard} key=${s.id} api=${api} project=${project} schedule=${s} onChange=${reload} />`)}
    <${AddSchedule} api=${api} project=${project} onAdded=${reload} />
  </div>`;
}

function ScheduleCard({ api, project, schedule, onChange }) {
  const [error, setError] = useState(null);
  const [runs, setRuns] = useState(null);
  const [open, setOpen] = useState(false);
  const next = useMemo(() => upcoming(schedule), [schedule.spec, schedule.next_run_at, schedule.enabled]);
  const loadRuns = () => api.scheduleRuns(project.name, schedule.id).then(setRuns, setError);
  return html`<article class="panel schedule" aria-label=${`Schedule ${schedule.name}`}>
    <div class="title-bar">
      <h2>${schedule.name} ${!schedule.enabled && html`<span class="state">paused</span>`}</h2>
      <div class="actions">
        <${ActionButton} busyText=${schedule.enabled ? 'Pausing…' : 'Resuming…'} onError=${setError}
          action=${async () => { await api.setScheduleEnabled(project.name, schedule.id, !schedule.enabled); onChange(); }}>
          ${schedule.enabled ? 'Pause' : 'Resume'}<//>
        <button type="button" onClick=${() => { setOpen(!open); if (!open) loadRuns(); }}>${open ? 'Hide history' : 'Run history'}</button>
        <${ActionButton} kind="danger" busyText="Deleting…" onError=${setError}
          action=${async () => { await api.deleteSchedule(project.name, schedule.id); onChange(); }}>Delete<//>
      </div>
    </div>
    <${ErrorNote} error=${error} />
    <dl class="facts">
      <dt>When</dt><dd><code>${schedule.spec}</code>: ${describeCron(schedule.spec)}</dd>
      <dt>Request</dt><dd><code>GET ${schedule.path}</code></dd>
      <dt>Next runs</dt><dd>${schedule.enabled
        ? html`<ol class="next-runs">${next.map((t) => html`<li>${formatTime(t)}</li>`)}</ol>`
        : html`<span class="muted">none while paused</span>`}</dd>
      <dt>Last run</dt><dd><${Outcome} status=${schedule.last_status} ms=${schedule.last_ms}
        error=${schedule.last_error} at=${schedule.last_run_at} /></dd>
    </dl>
    ${open && !runs && html`<${Loading} what="the run history" />`}
    ${open && runs && runs.length === 0 && html`<p class="muted">No runs yet.</p>`}
    ${open && runs && runs.length > 0 && html`<table class="list">
      <thead><tr><th>Due</th><th>Started</th><th>Status</th><th>Took</th><th>Error</th></tr></thead>
      <tbody>${runs.map((r) => html`<tr>
        <td>${formatTime(r.due_at)}</td><td>${formatAge(r.at)}</td>
        <td>${r.status === null ? html`<span class="muted">no answer</span>` : r.status}</td>
        <td>${r.ms === null ? '' : `${r.ms} ms`}</td><td class="bad">${r.error || ''}</td></tr>`)}</tbody>
    </table>`}
  </article>`;
}

function AddSchedule({ api, project, onAdded }) {
  const [name, setName] = useState('');
  const [spec, setSpec] = useState('');
  const [path, setPath] = useState('/');
  const [error, setError] = useState(null);
  const [added, setAdded] = useState('');
  const parsed = useMemo(() => (spec.trim() ? parseCron(spec) : null), [spec]);
  const preview = useMemo(() => (parsed && parsed.spec ? nextRuns(parsed.spec, Date.now() / 1000, 5) : []), [parsed]);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    setAdded('');
    try {
      const made = await api.addSchedule(project.name, { name, spec, path });
      setAdded(made.name);
      setName('');
      setSpec('');
      setPath('/');
      onAdded();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="panel" onSubmit=${submit} autocomplete="off">
    <h2>Add a schedule</h2>
    <label for="schedule-name">Name</label>
    <input id="schedule-name" value=${name} placeholder="nightly cleanup" onInput=${(e) => setName(e.currentTarget.value)} />
    <label for="schedule-spec">When (cron, UTC)</label>
    <input id="schedule-spec" value=${spec} spellcheck=${false} placeholder="*/15 * * * *"
      onInput=${(e) => setSpec(e.currentTarget.value)} />
    ${parsed && parsed.error && html`<p class="field-note bad">${parsed.error}</p>`}
    ${parsed && parsed.spec && html`<p class="field-note good">${describeCron(spec)}. Next:${' '}
      ${preview.map(formatTime).join(', ')}</p>`}
    <label for="schedule-path">Path to request</label>
    <input id="schedule-path" value=${path} spellcheck=${false} placeholder="/tasks/cleanup"
      onInput=${(e) => setPath(e.currentTarget.value)} />
    <${ErrorNote} error=${error} />
    ${added && html`<${Note}>${added} is scheduled.<//>`}
    <button type="submit" class="primary" disabled=${!name.trim() || !spec.trim()}>Add schedule</button>
  </form>`;
}
