// The newest releases across every project the caller reaches (GET /deploys), newest first.
import { html, useState, useEffect } from '../ui.js';
import { ErrorNote, Loading } from '../parts.js';
import { formatAge, formatBytes, shortId } from '../format.js';

export function RecentDeploys({ api }) {
  const [deploys, setDeploys] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api.allDeploys().then(setDeploys, setError);
  }, []);
  return html`<section>
    <h1>Recent deploys</h1>
    <${ErrorNote} error=${error} />
    ${!deploys && !error && html`<${Loading} what="recent deploys" />`}
    ${deploys && deploys.length === 0 && html`<p class="muted">No releases yet. Open a project's Deploys tab and drop a .tar.gz there.</p>`}
    ${deploys && deploys.length > 0 && html`<table class="list">
      <thead><tr><th>Project</th><th>Release</th><th>Status</th><th>Uploaded</th><th>Size</th></tr></thead>
      <tbody>${deploys.map((d) => html`<tr key=${d.id}>
        <td><a href=${`#/projects/${encodeURIComponent(d.project)}/deploys`}>${d.project}</a></td>
        <td><code>${shortId(d.id)}</code></td>
        <td><span class=${`status ${d.status}`}>${d.status}</span>
          ${d.error && html`<div class="error small">${d.error}</div>`}</td>
        <td>${formatAge(d.created_at)}</td>
        <td>${d.files ? `${d.files} files, ${formatBytes(d.bytes)}` : ''}</td>
      </tr>`)}</tbody>
    </table>`}
  </section>`;
}
