// Files: drop several files (or choose them) under a folder; each is stored at folder/name and
// served publicly at its URL, which is listed with a copy button. A banner says every stored
// file is public. Paths are checked with the API's rules before anything is sent; what the API
// refuses is shown on the file's own line, in its words.
import { html, useState, useEffect, useRef } from '../ui.js';
import { ErrorNote, Loading, ActionButton, CopyButton } from '../parts.js';
import { storedPath, filePathProblem, cleanFolder } from '../files.js';
import { formatApiError } from '../errors.js';
import { formatAge, formatBytes } from '../format.js';

export function Files({ api, project }) {
  const [files, setFiles] = useState(null);
  const [error, setError] = useState(null);
  const [folder, setFolder] = useState('');
  const [results, setResults] = useState([]); // [{path, state: 'sending'|'stored'|'refused', text}]
  const [dragging, setDragging] = useState(false);
  const input = useRef(null);
  const reload = () => api.files(project.name).then((f) => { setError(null); setFiles(f); }, setError);
  useEffect(() => { reload(); }, [project.name]);

  const store = async (list) => {
    const chosen = [...list];
    if (!chosen.length) return;
    const out = chosen.map((f) => {
      const path = storedPath(folder, f.name);
      const problem = filePathProblem(path);
      return { file: f, path, state: problem ? 'refused' : 'sending', text: problem || '' };
    });
    setResults(out.map(({ file, ...r }) => r));
    for (const r of out) {
      if (r.state !== 'sending') continue;
      try {
        await api.uploadFile(project.name, r.path, r.file);
        r.state = 'stored';
      } catch (err) {
        r.state = 'refused';
        r.text = formatApiError(err);
      }
      setResults(out.map(({ file, ...x }) => ({ ...x })));
    }
    reload();
  };

  return html`<div class=${`dropzone-page ${dragging ? 'dragging' : ''}`}
      onDragOver=${(e) => { e.preventDefault(); setDragging(true); }}
      onDragLeave=${(e) => { if (e.currentTarget === e.target) setDragging(false); }}
      onDrop=${(e) => { e.preventDefault(); setDragging(false); store(e.dataTransfer.files); }}>
    <p class="warning" role="note"><strong>Every stored file is public:</strong> anyone with its URL can read it,
      at <code>${project.url}/_files/…</code>. Do not store anything private here.</p>
    <div class="dropzone">
      <label for="files-folder">Folder</label>
      <input id="files-folder" value=${folder} spellcheck=${false} placeholder="images/2026 (empty: the top)"
        onInput=${(e) => setFolder(e.currentTarget.value)} />
      <p><strong>Drop files here</strong> to store them under${' '}
        <code>${cleanFolder(folder) ? `${cleanFolder(folder)}/` : '/'}</code>, or${' '}
        <button type="button" class="link" onClick=${() => input.current.click()}>choose files</button>.
        The same path again replaces the file.</p>
      <input ref=${input} type="file" multiple class="hidden" aria-label="Files to store"
        onChange=${(e) => { store(e.currentTarget.files); e.currentTarget.value = ''; }} />
    </div>
    ${results.length > 0 && html`<ul class="results" aria-live="polite">${results.map((r) => html`<li>
      <code>${r.path}</code>: ${r.state === 'sending' ? html`<span class="muted">storing…</span>`
        : r.state === 'stored' ? html`<span class="good">stored</span>`
        : html`<span class="bad" role="alert">${r.text}</span>`}</li>`)}</ul>`}
    <h2>Stored files</h2>
    <${ErrorNote} error=${error} />
    ${!files && !error && html`<${Loading} what="files" />`}
    ${files && files.length === 0 && html`<p class="muted">No files stored yet.</p>`}
    ${files && files.length > 0 && html`<table class="list files">
      <thead><tr><th>Path and public URL</th><th>Size</th><th>Type</th><th>Changed</th><th></th></tr></thead>
      <tbody>${files.map((f) => html`<${FileRow} key=${f.path} api=${api} project=${project} file=${f} onDeleted=${reload} />`)}</tbody>
    </table>`}
  </div>`;
}

function FileRow({ api, project, file, onDeleted }) {
  const [error, setError] = useState(null);
  return html`<tr>
    <td><code>${file.path}</code><div class="small"><a href=${file.url} target="_blank" rel="noopener noreferrer">${file.url}</a>
      <${CopyButton} text=${file.url} label="Copy URL" what=${`of ${file.path}`} /></div></td>
    <td>${formatBytes(file.bytes)}</td>
    <td class="small">${file.content_type}</td>
    <td>${formatAge(file.updated_at)}</td>
    <td><${ActionButton} kind="danger" busyText="Deleting…" onError=${setError}
      action=${async () => { await api.deleteFile(project.name, file.path); onDeleted(); }}>Delete<//>
      <${ErrorNote} error=${error} /></td>
  </tr>`;
}
