// Releases: drop a .tar.gz or a folder (or choose either), watch it upload, then follow the
// build until it is live or failed. A folder is packed in the browser into a .tar.gz
// (src/tarball.js: tar + CompressionStream), as `tar czf app.tar.gz -C folder .` would, and
// uploaded the same way. The list below has every recent release with its status and error,
// and promote for an earlier one.
import { html, useState, useEffect, useRef } from '../ui.js';
import { ErrorNote, Loading, ActionButton } from '../parts.js';
import { uploadRelease } from '../api.js';
import { formatAge, formatBytes, shortId } from '../format.js';
import { folderFiles, packFolder } from '../tarball.js';

// The files under a dropped folder, through the drop's FileSystemEntry tree: [{path, file}]
// with the folder's own name first (as <input webkitdirectory> gives them). .git and .berth
// are not walked (a deploy leaves them out).
async function walkEntry(entry, prefix, out) {
  if (entry.isFile) {
    const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
    out.push({ path: `${prefix}${entry.name}`, file });
    return;
  }
  if (!entry.isDirectory || (prefix && (entry.name === '.git' || entry.name === '.berth'))) return;
  const reader = entry.createReader();
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) return;
    for (const child of batch) await walkEntry(child, `${prefix}${entry.name}/`, out);
  }
}

const POLL_MS = 1000;

export function Deploys({ api, project, onChange }) {
  const [deploys, setDeploys] = useState(null);
  const [listError, setListError] = useState(null);
  const [upload, setUpload] = useState(null); // {file, sent, total, release, error}
  const [dragging, setDragging] = useState(false);
  const alive = useRef(true);
  const input = useRef(null);
  const folderInput = useRef(null);

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

  const send = async (file) => {
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

  const start = async (file) => {
    if (!file) return;
    if (!/\.(tar\.gz|tgz)$/i.test(file.name)) {
      setUpload({ file, error: new Error(`${file.name} is not a .tar.gz: drop the app's folder itself, or pack it with tar czf app.tar.gz -C folder .`) });
      return;
    }
    setUpload({ file, sent: 0, total: file.size });
    await send(file);
  };

  // A folder: its files (with the folder's name first in each path) packed, then sent.
  const startFolder = async (folderName, chosen) => {
    const files = folderFiles(chosen);
    const bytes = files.reduce((n, f) => n + f.file.size, 0);
    const packing = { name: `${folderName}.tar.gz`, size: 0 };
    setUpload({ file: packing, folder: { name: folderName, files: files.length, bytes }, packing: true });
    if (!files.length) {
      setUpload((u) => ({ ...u, packing: false, error: new Error(`${folderName} holds no files to deploy`) }));
      return;
    }
    let file;
    try {
      file = await packFolder(folderName, files);
    } catch (err) {
      setUpload((u) => ({ ...u, packing: false, error: err }));
      return;
    }
    if (!alive.current) return;
    setUpload((u) => ({ ...u, file, packing: false, sent: 0, total: file.size }));
    await send(file);
  };

  const chooseFolder = (list) => {
    const chosen = [...list].map((f) => ({ path: f.webkitRelativePath || f.name, file: f }));
    if (!chosen.length) return;
    startFolder(chosen[0].path.split('/')[0], chosen);
  };

  const onDrop = (e) => {
    e.preventDefault();
    setDragging(false);
    // The entries must be taken while the drop event lasts.
    const items = [...(e.dataTransfer.items || [])];
    const entry = items.length && items[0].webkitGetAsEntry ? items[0].webkitGetAsEntry() : null;
    if (entry && entry.isDirectory) {
      const out = [];
      walkEntry(entry, '', out).then(() => startFolder(entry.name, out),
        (err) => setUpload({ file: { name: entry.name, size: 0 }, error: err }));
      return;
    }
    start(e.dataTransfer.files[0]);
  };

  return html`<div class=${`dropzone-page ${dragging ? 'dragging' : ''}`}
      onDragOver=${(e) => { e.preventDefault(); setDragging(true); }}
      onDragLeave=${(e) => { if (e.currentTarget === e.target) setDragging(false); }}
      onDrop=${onDrop}>
    <div class="dropzone">
      <p><strong>Drop your app's folder or a .tar.gz of it here</strong> to deploy it, or choose${' '}
        <button type="button" class="link" onClick=${() => folderInput.current.click()}>a folder</button> or${' '}
        <button type="button" class="link" onClick=${() => input.current.click()}>a .tar.gz</button>.</p>
      <p class="muted small">A folder is packed here in the browser (without <code>.git</code>), as${' '}
        <code>tar czf app.tar.gz -C folder .</code> would; a folder with an <code>index.html</code> and nothing to run is
        served as a static site.</p>
      <input ref=${input} type="file" accept=".gz,.tgz,application/gzip" class="hidden" aria-label="Release archive"
        onChange=${(e) => { start(e.currentTarget.files[0]); e.currentTarget.value = ''; }} />
      <input ref=${folderInput} type="file" webkitdirectory=${true} multiple class="hidden" aria-label="App folder"
        onChange=${(e) => { chooseFolder(e.currentTarget.files); e.currentTarget.value = ''; }} />
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
  const { file, folder, packing, sent, total, release, error } = upload;
  const uploading = !packing && !release && !error;
  return html`<div class="upload" aria-live="polite">
    ${folder && html`<p>The folder <strong>${folder.name}</strong>: ${folder.files === 1 ? '1 file' : `${folder.files} files`},${' '}
      ${formatBytes(folder.bytes)}${packing ? '' : html`, packed into <strong>${file.name}</strong> (${formatBytes(file.size)})`}</p>`}
    ${!folder && html`<p><strong>${file.name}</strong> (${formatBytes(file.size)})</p>`}
    ${packing && html`<p>Packing it into ${file.name}…</p>`}
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
