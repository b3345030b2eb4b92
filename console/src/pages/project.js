// One project: a header with its address and state, and its tabs. The project is read once
// here and again when a tab changes something it shows (a deploy going live).
import { html, useState, useEffect } from '../ui.js';
import { ErrorNote, Loading, ActionButton, Note } from '../parts.js';
import { formatAge, formatBytes, formatTime, shortId } from '../format.js';
import { Deploys } from './deploys.js';
import { Secrets } from './secrets.js';
import { Schedules } from './schedules.js';
import { Settings } from './settings.js';
import { Logs } from './logs.js';
import { Domains } from './domains.js';
import { Files } from './files.js';
import { Database } from './database.js';
import { DataApi } from './data_api.js';

const TABS = [
  ['overview', 'Overview'],
  ['deploys', 'Deploys'],
  ['logs', 'Logs'],
  ['secrets', 'Secrets'],
  ['schedules', 'Schedules'],
  ['domains', 'Domains'],
  ['files', 'Files'],
  ['database', 'Database'],
  ['data-api', 'Data API'],
  ['settings', 'Settings'],
];

export function Project({ api, name, tab, sub }) {
  const [project, setProject] = useState(null);
  const [error, setError] = useState(null);
  const reload = () => api.project(name).then(setProject, setError);

  useEffect(() => {
    setProject(null);
    setError(null);
    reload();
  }, [name]);

  if (error) return html`<section><h1>${name}</h1><${ErrorNote} error=${error} /></section>`;
  if (!project) return html`<section><h1>${name}</h1><${Loading} what="the project" /></section>`;
  const base = `#/projects/${encodeURIComponent(name)}`;
  return html`<section>
    <div class="title-bar">
      <h1>${project.name} <span class=${`state ${project.state}`}>${project.state}</span></h1>
      <a class="button" href=${project.url} target="_blank" rel="noopener noreferrer">Open app ↗</a>
    </div>
    <nav class="tabs" aria-label="Project">
      ${TABS.map(([id, label]) => html`<a href=${id === 'overview' ? base : `${base}/${id}`}
        class=${tab === id ? 'active' : ''} aria-current=${tab === id ? 'page' : undefined}>${label}</a>`)}
    </nav>
    ${tab === 'overview' && html`<${Overview} api=${api} project=${project} />`}
    ${tab === 'deploys' && html`<${Deploys} api=${api} project=${project} onChange=${reload} />`}
    ${tab === 'secrets' && html`<${Secrets} api=${api} project=${project} />`}
    ${tab === 'schedules' && html`<${Schedules} api=${api} project=${project} />`}
    ${tab === 'logs' && html`<${Logs} api=${api} project=${project} />`}
    ${tab === 'domains' && html`<${Domains} api=${api} project=${project} />`}
    ${tab === 'files' && html`<${Files} api=${api} project=${project} />`}
    ${tab === 'database' && html`<${Database} api=${api} project=${project} sub=${sub} />`}
    ${tab === 'data-api' && html`<${DataApi} api=${api} project=${project} />`}
    ${tab === 'settings' && html`<${Settings} api=${api} project=${project} onChange=${reload} />`}
    ${!TABS.some(([id]) => id === tab) && html`<p>This page is not in the console yet.</p>`}
  </section>`;
}

function Overview({ api, project }) {
  const [purgeError, setPurgeError] = useState(null);
  const [purged, setPurged] = useState(false);
  const live = project.live;
  return html`<div>
    <dl class="facts">
      <dt>Address</dt><dd><a href=${project.url} target="_blank" rel="noopener noreferrer">${project.url}</a></dd>
      <dt>Owner</dt><dd>${project.team ? `team ${project.team}` : project.owner ? project.owner.email || project.owner.slug : ''}</dd>
      <dt>Region</dt><dd>${project.region}</dd>
      <dt>Runtime</dt><dd>${project.runtime || html`<span class="muted">not known yet</span>`}</dd>
      <dt>Start command</dt><dd>${project.cmd ? html`<code>${project.cmd}</code>`
        : html`<span class="muted">none set (a static site, or detected at the next deploy)</span>`}</dd>
      <dt>Live release</dt><dd>${live
        ? html`<code>${shortId(live.id)}</code>, ${formatAge(live.created_at)} (${formatTime(live.created_at)}),${' '}
            ${live.files} files, ${formatBytes(live.bytes)}`
        : html`<span class="muted">none yet: upload one in <a href=${`#/projects/${encodeURIComponent(project.name)}/deploys`}>Deploys</a></span>`}</dd>
      <dt>Database</dt><dd>${formatBytes(project.db_bytes)}</dd>
      <dt>Stored files</dt><dd>${project.files_count} files, ${formatBytes(project.files_bytes)}</dd>
      <dt>Edge cache</dt><dd>${project.cache_enabled ? `on, ${project.cache_ttl} s for answers that do not say` : 'off'}</dd>
      <dt>Created</dt><dd>${formatTime(project.created_at)}</dd>
    </dl>
    <div class="actions">
      <a class="button" href=${project.url} target="_blank" rel="noopener noreferrer">Open app ↗</a>
      <${ActionButton} busyText="Emptying…" onError=${setPurgeError}
        action=${async () => {
          setPurged(false);
          await api.purgeCache(project.name);
          setPurged(true);
        }}>Empty the edge cache<//>
    </div>
    <${ErrorNote} error=${purgeError} />
    ${purged && html`<${Note}>The edge cache is empty: the next requests reach the app.<//>`}
  </div>`;
}
