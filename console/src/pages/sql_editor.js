// The SQL editor: what is typed goes where the API's rules say (src/sqlroute.js), and the
// editor says where before it runs: schema changes only to /sql (one transaction; the tables
// are read again), one statement to /query, several to /batch (one transaction). Results as
// tables, big values in the side panel; the history of this browser (localStorage, per
// project: statements only, never a token).
import { html, useState, useMemo } from '../ui.js';
import { ErrorNote } from '../parts.js';
import { routeSql, addToHistory, readHistory, writeHistory } from '../sqlroute.js';
import { cellPreview } from '../rows.js';
import { formatAge } from '../format.js';
import { ValuePanel } from './rows_grid.js';

const storage = () => {
  try {
    return globalThis.localStorage || null;
  } catch {
    return null;
  }
};

export function SqlEditor({ api, project, onSchemaChanged }) {
  const [sql, setSql] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState(null); // {route, answer}
  const [error, setError] = useState(null);
  const [panel, setPanel] = useState(null);
  const [history, setHistory] = useState(() => (storage() ? readHistory(storage(), project.name) : []));
  const plan = useMemo(() => routeSql(sql), [sql]);

  const remember = (ok) => {
    const next = addToHistory(history, { sql: sql.trim(), at: Math.floor(Date.now() / 1000), route: plan.route, ok });
    setHistory(next);
    if (storage()) writeHistory(storage(), project.name, next);
  };

  const run = async () => {
    if (!plan.route || busy) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const answer = await api.runSql(project.name, plan.route, plan.body);
      setResult({ route: plan.route, answer });
      remember(true);
      // A batch may hold schema changes too; the structure is cheap to read again.
      if (plan.route !== 'query' || /^\s*(create|alter|drop)/i.test(sql)) onSchemaChanged();
    } catch (err) {
      setError(err);
      remember(false);
    } finally {
      setBusy(false);
    }
  };

  return html`<div class="sql-editor">
    <h2 class="flush">SQL editor</h2>
    <form onSubmit=${(e) => { e.preventDefault(); run(); }}>
      <label for="sql-text">SQL <span class="muted small">(Ctrl+Enter runs it)</span></label>
      <textarea id="sql-text" class="sql" rows="8" spellcheck=${false} value=${sql}
        placeholder=${'create table notes (id serial primary key, body text not null);\n\nselect * from notes order by id;'}
        onInput=${(e) => setSql(e.currentTarget.value)}
        onKeyDown=${(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); } }}></textarea>
      <p class=${`field-note ${plan.route ? '' : sql.trim() ? 'bad' : ''}`} aria-live="polite">
        ${plan.route ? html`Runs at <code>POST /projects/${project.name}/${plan.route}</code>. ${plan.why}`
          : sql.trim() ? plan.problem : 'Schema changes (create, alter, drop) go to /sql, one statement to /query, several to /batch.'}</p>
      <button type="submit" class="primary" disabled=${!plan.route || busy}>${busy ? 'Running…' : 'Run'}</button>
    </form>
    <${ErrorNote} error=${error} />
    ${result && html`<${Result} result=${result} onOpen=${setPanel} />`}
    ${panel && html`<${ValuePanel} title=${panel.column} value=${panel.value} onClose=${() => setPanel(null)} />`}
    <h3>History <span class="muted small">(kept in this browser only)</span></h3>
    ${history.length === 0 && html`<p class="muted small">Nothing run yet.</p>`}
    ${history.length > 0 && html`<ol class="history">${history.map((h) => html`<li>
      <button type="button" class="link" title="Put it back in the editor" onClick=${() => setSql(h.sql)}><code>${h.sql.length > 160 ? `${h.sql.slice(0, 160)}…` : h.sql}</code></button>
      <span class="muted small"> ${h.route ? `/${h.route}` : ''} ${h.ok ? '' : '(refused)'} ${formatAge(h.at)}</span></li>`)}</ol>
      <button type="button" onClick=${() => { setHistory([]); if (storage()) writeHistory(storage(), project.name, []); }}>Clear the history</button>`}
  </div>`;
}

function Result({ result, onOpen }) {
  const { route, answer } = result;
  if (route === 'sql') {
    return html`<p class="note" role="status">Done. Tables now: ${answer.tables.length ? answer.tables.join(', ') : 'none'}.</p>`;
  }
  const results = route === 'batch' ? answer.results : [answer];
  return html`<div class="results">${results.map((r, i) => html`<div class="result">
    ${route === 'batch' && html`<h4>Statement ${i + 1}</h4>`}
    <${QueryResult} r=${r} onOpen=${onOpen} />
  </div>`)}</div>`;
}

function QueryResult({ r, onOpen }) {
  if (!r.columns.length) {
    return html`<p class="note" role="status">${r.changed === 1 ? '1 row changed' : `${r.changed ?? 0} rows changed`} (${r.took_ms} ms).</p>`;
  }
  return html`<div>
    <p class="small muted">${r.rows.length === 1 ? '1 row' : `${r.rows.length} rows`} in ${r.took_ms} ms${r.truncated ? '; more rows than these 500 (add a limit, or export)' : ''}.</p>
    <div class="grid-scroll"><table class="grid" aria-label="Query result">
      <thead><tr>${r.columns.map((c) => html`<th>${c}</th>`)}</tr></thead>
      <tbody>${r.rows.map((row) => html`<tr>${r.columns.map((c) => {
        const { text, big } = cellPreview(row[c]);
        const shown = text === null ? html`<span class="null">NULL</span>` : text;
        return big
          ? html`<td><button type="button" class="cell big" aria-label=${`Open the whole value of ${c}`} onClick=${() => onOpen({ column: c, value: row[c] })}>${shown}</button></td>`
          : html`<td>${shown}</td>`;
      })}</tr>`)}</tbody>
    </table></div>
  </div>`;
}
