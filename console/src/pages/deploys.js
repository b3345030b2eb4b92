// Releases: drop a .tar.gz (or choose one), watch it upload, then follow the build until it is
// live or failed. The list below has every recent release with its status and error, and
// promote for an earlier one.
import { html, useState, useEffect, useRef } from '../ui.js';
import { ErrorNote, Loading, ActionButton } from '../parts.js';
import { uploadRelease } from '../api.js';
import { formatAge, formatBytes, shortId } from '../format.js';

const POLL_MS = 1000;

export function Deploys({ api, project, onChange }) {
  const [deploys, setDeploys] = useState(null);
  const [listError, setListError] = useState(null);
  const [upload, setUpload] = useState(null); // {file, sent, total, release, error}
  const [dragging, setDragging] = useState(false);
  const alive = useRef(true);
  const input = useRef(null);

  const reload = () => api.deploys(project.name).then(setDeploys, setListError);
  useEffect(() => {
    reload();
    return () => {
      alive.current = false;
    };
  }, [project.name]);

  const follow = async (release) => {
    let current = release;
    while (alive.current && current.status === 'building') {
      await new Promise((r) => setTimeout(r, POLL_MS));
      current = await api.release(project.name, release.id);
      if (alive.current) setUpload((u) => ({ ...u, release: current }));
    }
    if (alive.current) {
      reload();
      onChange();
    }
  };

  const start = async (file) => {
    if (!file) return;
    if (!/\.(tar\.gz|tgz)$/i.test(file.name)) {
      setUpload({ file, error: new Error(`${file.name} is not a .tar.gz: pack your app's folder with tar czf app.tar.gz -C folder .`) });
      return;
    }
    setUpload({ file, sent: 0, total: file.size });
    try {
      const release = await uploadRelease(project.name, file, (sent, total) =>
        alive.current && setUpload((u) => ({ ...u, sent, total })));
      setUpload((u) => ({ ...u, sent: u.total, release }));
      reload();
      await follow(release);
    } catch (err) {
      if (alive.current) setUpload((u) => ({ ...u, error: err }));
    }
  };

  const onDrop = (e) => {
    e.preventDefault();
    setDragging(false);
    start(e.dataTransfer.files[0]);
  };

  return html`<div class=${`dropzone-page ${dragging ? 'dragging' : ''}`}
      onDragOver=${(e) => { e.preventDefault(); setDragging(true); }}
      onDragLeave=${(e) => { if (e.currentTarget === e.target) setDragging(false); }}
      onDrop=${onDrop}>
    <div class="dropzone">
      <p><strong>Drop a .tar.gz of your app here</strong> to deploy it, or${' '}
        <button type="button" class="link" onClick=${() => input.current.click()}>choose a file</button>.</p>
      <p class="muted small">Pack a folder with <code>tar czf site.tar.gz -C my-site .</code>; a folder with an${' '}
        <code>index.html</code> and nothing to run is served as a static site.</p>
      <input ref=${input} type="file" accept=".gz,.tgz,application/gzip" class="hidden" aria-label="Release archive"
        onChange=${(e) => start(e.currentTarget.files[0])} />
    </div>
    ${upload && html`<${UploadStatus} upload=${upload} project=${project} />`}
    <h2>Releases</h2>
    <${ErrorNote} error=${listError} />
    ${!deploys && !listError && html`<${Loading} what="releases" />`}
    ${deploys && deploys.length === 0 && html`<p class="muted">No releases yet.</p>`}
    ${deploys && deploys.length > 0 && html`<table class="list">
      <thead><tr><th>Release</th><th>Status</th><th>Uploaded</th><th>Size</th><th>Runtime</th><th></th></tr></thead>
      <tbody>${deploys.map((d) => html`<${ReleaseRow} key=${d.id} api=${api} project=${project} release=${d}
        onPromoted=${() => { reload(); onChange(); }} />`)}</tbody>
    </table>`}
  </div>`;
}

function UploadStatus({ upload, project }) {
  const { file, sent, total, release, error } = upload;
  const uploading = !release && !error;
  return html`<div class="upload" aria-live="polite">
    <p><strong>${file.name}</strong> (${formatBytes(file.size)})</p>
    ${uploading && html`<p>Uploading… ${formatBytes(sent || 0)} of ${formatBytes(total || file.size)}</p>
      <progress max=${total || 1} value=${sent || 0}></progress>`}
    ${release && release.status === 'building' && html`<p class="status building">Building release <code>${shortId(release.id)}</code>…</p>`}
    ${release && release.status === 'live' && html`<p class="status live">Release <code>${shortId(release.id)}</code> is live at${' '}
      <a href=${project.url} target="_blank" rel="noopener noreferrer">${project.url}</a></p>`}
    ${release && release.status === 'failed' && html`<div class="error" role="alert">The build failed: ${release.error}</div>
      ${release.build_log && html`<pre class="log">${release.build_log}</pre>`}`}
    <${ErrorNote} error=${error} />
  </div>`;
}

function ReleaseRow({ api, project, release, onPromoted }) {
  const [error, setError] = useState(null);
  const d = release;
  return html`<tr>
    <td><code>${shortId(d.id)}</code>${d.cmd && html` <span class="muted small">${d.cmd}</span>`}</td>
    <td><span class=${`status ${d.status}`}>${d.status}</span>
      ${d.error && html`<div class="error small">${d.error}</div>`}
      <${ErrorNote} error=${error} /></td>
    <td>${formatAge(d.created_at)}</td>
    <td>${d.files ? `${d.files} files, ${formatBytes(d.bytes)}` : ''}</td>
    <td>${d.runtime || ''}</td>
    <td>${d.status === 'ready' && html`<${ActionButton} busyText="Promoting…" onError=${setError}
      action=${async () => { await api.promote(project.name, d.id); onPromoted(); }}>Make live<//>`}</td>
  </tr>`;
}
