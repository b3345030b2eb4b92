// Import and export of the project's database. Export: every format the API offers
// (GET /projects/{name}/backup names them), plain or gzipped, downloaded straight from
// GET /projects/{name}/export (nginx sends the file; nothing passes through the page). Import: a
// SQL script (a plain pg_dump file too) uploaded as the raw body of POST .../import with its
// progress (XMLHttpRequest, as Deploys uploads), run in one transaction.
import { html, useState, useEffect, useRef } from '../ui.js';
import { ErrorNote, Loading } from '../parts.js';
import { uploadImport } from '../api.js';
import { formatBytes } from '../format.js';

const FORMAT_WORDS = {
  postgres: ['PostgreSQL', "pg_dump's plain SQL: schema, data as COPY, views and functions. Loads with psql, or Import here."],
  sql: ['SQL', 'The same file as PostgreSQL.'],
  mysql: ['MySQL / MariaDB', 'A script for MariaDB 10.11 and MySQL 8: tables, keys and rows (views and functions left out).'],
  json: ['JSON', '{"tables": {"<table>": [rows]}}: every table, each row an object.'],
};

export function Transfer({ api, project, onImported }) {
  const [backup, setBackup] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { api.backup(project.name).then(setBackup, setError); }, [project.name]);
  return html`<div>
    <h2 class="flush">Export</h2>
    <${ErrorNote} error=${error} />
    ${!backup && !error && html`<${Loading} what="the export formats" />`}
    ${backup && html`<${Export} api=${api} project=${project} backup=${backup} />`}
    <h2>Import</h2>
    <${Import} project=${project} onImported=${onImported} />
  </div>`;
}

function Export({ api, project, backup }) {
  const [gzip, setGzip] = useState(false);
  return html`<div>
    <p>The database is ${formatBytes(backup.size_bytes)}. ${backup.automatic ? '' : 'Berth keeps no automatic copy: download one here when you need it.'}</p>
    <label class="check"><input type="checkbox" checked=${gzip} onChange=${(e) => setGzip(e.currentTarget.checked)} /> gzip the file</label>
    <table class="list">
      <thead><tr><th>Format</th><th>What it holds</th><th></th></tr></thead>
      <tbody>${backup.formats.map((f) => {
        const [name, words] = FORMAT_WORDS[f] || [f, ''];
        return html`<tr>
          <td>${name} <span class="muted small">(${f})</span></td>
          <td class="small">${words}</td>
          <td><a class="button" href=${api.exportUrl(project.name, f, gzip)} download>Download ${name}${gzip ? ' (.gz)' : ''}</a></td>
        </tr>`;
      })}</tbody>
    </table>
  </div>`;
}

function Import({ project, onImported }) {
  const [upload, setUpload] = useState(null); // {file, sent, total, answer, error}
  const [dragging, setDragging] = useState(false);
  const input = useRef(null);
  const alive = useRef(true);
  useEffect(() => () => { alive.current = false; }, []);

  const start = async (file) => {
    if (!file) return;
    setUpload({ file, sent: 0, total: file.size });
    try {
      const answer = await uploadImport(project.name, file, (sent, total) => alive.current && setUpload((u) => ({ ...u, sent, total })));
      if (!alive.current) return;
      setUpload((u) => ({ ...u, sent: u.total, answer }));
      onImported();
    } catch (err) {
      if (alive.current) setUpload((u) => ({ ...u, error: err }));
    }
  };

  return html`<div class=${`dropzone-page ${dragging ? 'dragging' : ''}`}
      onDragOver=${(e) => { e.preventDefault(); setDragging(true); }}
      onDragLeave=${(e) => { if (e.currentTarget === e.target) setDragging(false); }}
      onDrop=${(e) => { e.preventDefault(); setDragging(false); start(e.dataTransfer.files[0]); }}>
    <p class="warning">An import runs a SQL script against the database as it is: nothing is emptied first, and the
      same script sent twice applies twice. The whole script runs in one transaction, so a refusal keeps none of it.
      Only the owner or an admin of the project's account may import.</p>
    <div class="dropzone">
      <p><strong>Drop a .sql file here</strong> (a plain <code>pg_dump</code> file works, up to 256 MB), or${' '}
        <button type="button" class="link" onClick=${() => input.current.click()}>choose one</button>.</p>
      <input ref=${input} type="file" accept=".sql,.txt,application/sql,text/plain" class="hidden" aria-label="SQL script to import"
        onChange=${(e) => { start(e.currentTarget.files[0]); e.currentTarget.value = ''; }} />
    </div>
    ${upload && html`<div class="upload" aria-live="polite">
      <p><strong>${upload.file.name}</strong> (${formatBytes(upload.file.size)})</p>
      ${!upload.answer && !upload.error && html`<p>${upload.sent < upload.total
        ? `Uploading… ${formatBytes(upload.sent)} of ${formatBytes(upload.total)}`
        : 'Uploaded; the script is running…'}</p>
        <progress max=${upload.total || 1} value=${upload.sent}></progress>`}
      ${upload.answer && html`<p class="note" role="status">Imported: ${upload.answer.ran} statements ran, ${upload.answer.skipped} left out
        (SET lines, backslash commands, the script's own BEGIN and COMMIT); ${upload.answer.tables} tables now.</p>`}
      <${ErrorNote} error=${upload.error} />
    </div>`}
  </div>`;
}
