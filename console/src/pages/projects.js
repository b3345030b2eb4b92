// The projects the caller reaches (its own and its teams'), filterable.
import { html, useState, useEffect } from '../ui.js';
import { ErrorNote, Loading } from '../parts.js';
import { filterProjects, formatAge, shortId } from '../format.js';

export function Projects({ api }) {
  const [projects, setProjects] = useState(null);
  const [error, setError] = useState(null);
  const [query, setQuery] = useState('');

  useEffect(() => {
    api.projects().then(setProjects, setError);
  }, []);

  const shown = projects ? filterProjects(projects, query) : [];
  return html`<section>
    <div class="title-bar">
      <h1>Projects</h1>
      <a class="button primary" href="#/new">New project</a>
    </div>
    <${ErrorNote} error=${error} />
    ${!projects && !error && html`<${Loading} what="your projects" />`}
    ${projects && projects.length === 0 && html`<div class="empty">
      <p>No projects yet.</p>
      <a class="button primary" href="#/new">Make your first project</a>
    </div>`}
    ${projects && projects.length > 0 && html`
      <input type="search" class="filter" aria-label="Filter projects" value=${query}
        placeholder="Filter by name, state, region, runtime…" onInput=${(e) => setQuery(e.currentTarget.value)} />
      <table class="list">
        <thead><tr><th>Name</th><th>State</th><th>Region</th><th>Live release</th><th>Runtime</th></tr></thead>
        <tbody>
          ${shown.map((p) => html`<tr key=${p.name}>
            <td><a href=${`#/projects/${encodeURIComponent(p.name)}`}>${p.name}</a>
              ${p.team && html` <span class="tag">${p.team}</span>`}</td>
            <td><span class=${`state ${p.state}`}>${p.state}</span></td>
            <td>${p.region}</td>
            <td>${p.live ? html`<code>${shortId(p.live.id)}</code> <span class="muted">${formatAge(p.live.created_at)}</span>`
              : html`<span class="muted">no release</span>`}</td>
            <td>${p.runtime || html`<span class="muted">—</span>`}</td>
          </tr>`)}
        </tbody>
      </table>
      ${shown.length === 0 && html`<p class="muted">No project matches “${query}”.</p>`}`}
  </section>`;
}
