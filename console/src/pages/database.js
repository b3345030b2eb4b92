// Database: the project's own PostgreSQL database through the API's routes (the sqlconsole
// plugin). A list of tables and views on the left; on the right the chosen table's columns,
// keys, links and indexes with its rows (src/pages/rows_grid.js), a view's definition and rows,
// the SQL editor (src/pages/sql_editor.js), or import and export (src/pages/db_transfer.js).
// The place is in the fragment: #/projects/<name>/database/<table>, .../database/:sql, ...
import { html, useState, useEffect } from '../ui.js';
import { ErrorNote, Loading } from '../parts.js';
import { RowsGrid } from './rows_grid.js';
import { SqlEditor } from './sql_editor.js';
import { Transfer } from './db_transfer.js';

const SQL = ':sql';
const TRANSFER = ':transfer';

export function Database({ api, project, sub }) {
  const [structure, setStructure] = useState(null); // {tables, views, indexes}
  const [error, setError] = useState(null);
  const base = `#/projects/${encodeURIComponent(project.name)}/database`;
  const href = (place) => `${base}/${encodeURIComponent(place)}`;

  const reload = () =>
    Promise.all([api.tables(project.name), api.views(project.name), api.indexes(project.name)]).then(
      ([tables, views, indexes]) => {
        setError(null);
        setStructure({ tables, views, indexes });
      },
      setError,
    );
  useEffect(() => { reload(); }, [project.name]);

  // Without a place in the fragment: the first table when the page opens with tables, else the
  // editor; decided once, so that running SQL does not move the page away from the editor.
  const [opening, setOpening] = useState(null);
  useEffect(() => {
    if (structure && opening === null) setOpening(structure.tables.length ? structure.tables[0].name : SQL);
  }, [structure]);
  const place = sub || opening || SQL;
  const table = structure && structure.tables.find((t) => t.name === place);
  const view = structure && structure.views.find((v) => v.name === place);

  return html`<div class="db-layout">
    <nav class="db-side" aria-label="Database">
      <a href=${href(SQL)} class=${place === SQL ? 'active' : ''}>SQL editor</a>
      <a href=${href(TRANSFER)} class=${place === TRANSFER ? 'active' : ''}>Import and export</a>
      <h3>Tables</h3>
      ${!structure && !error && html`<p class="muted small">Loading…</p>`}
      ${structure && structure.tables.length === 0 && html`<p class="muted small">None yet: make one in the SQL editor.</p>`}
      ${structure && structure.tables.map((t) => html`<a href=${href(t.name)} class=${place === t.name ? 'active' : ''}>${t.name}</a>`)}
      ${structure && structure.views.length > 0 && html`<h3>Views</h3>
        ${structure.views.map((v) => html`<a href=${href(v.name)} class=${place === v.name ? 'active' : ''}>${v.name}</a>`)}`}
    </nav>
    <div class="db-main">
      <${ErrorNote} error=${error} />
      ${place === SQL && html`<${SqlEditor} api=${api} project=${project} onSchemaChanged=${reload} />`}
      ${place === TRANSFER && html`<${Transfer} api=${api} project=${project} onImported=${reload} />`}
      ${table && html`<${TableView} key=${table.name} api=${api} project=${project} table=${table} structure=${structure} />`}
      ${view && html`<${ViewView} key=${view.name} api=${api} project=${project} view=${view} />`}
      ${structure && !table && !view && place !== SQL && place !== TRANSFER &&
        html`<p>No table or view named <code>${place}</code>. <a href=${href(SQL)}>Open the SQL editor</a>.</p>`}
      ${!structure && !error && place !== SQL && place !== TRANSFER && html`<${Loading} what="the tables" />`}
    </div>
  </div>`;
}

function linkText(l) {
  const from = l.columns ? l.columns.join(', ') : l.column;
  const to = l.to_columns ? l.to_columns.join(', ') : l.to;
  const actions = [l.on_delete && `on delete ${l.on_delete.toLowerCase()}`, l.on_update && `on update ${l.on_update.toLowerCase()}`]
    .filter(Boolean).join(', ');
  return { from, to, actions };
}

function TableView({ api, project, table, structure }) {
  const [showStructure, setShowStructure] = useState(true);
  const indexes = structure.indexes.filter((i) => i.table === table.name);
  const pointing = [];
  for (const t of structure.tables) for (const l of t.links) if (l.table === table.name) pointing.push({ ...l, from: t.name });
  return html`<div>
    <div class="title-bar">
      <h2 class="flush">Table <code>${table.name}</code></h2>
      <button type="button" class="link" aria-expanded=${showStructure} onClick=${() => setShowStructure(!showStructure)}>
        ${showStructure ? 'Hide its structure' : 'Show its structure'}</button>
    </div>
    ${showStructure && html`<div class="structure">
      <table class="list compact" aria-label=${`Columns of ${table.name}`}>
        <thead><tr><th>Column</th><th>Type</th><th>Null</th><th>Default</th><th>Key and link</th></tr></thead>
        <tbody>${table.columns.map((c) => {
          const link = table.links.find((l) => (l.columns || [l.column]).includes(c.name));
          return html`<tr>
            <td><code>${c.name}</code></td>
            <td class="small">${c.type}</td>
            <td class="small">${c.not_null ? 'not null' : html`<span class="muted">null</span>`}</td>
            <td class="small">${c.default_value ? html`<code>${c.default_value}</code>` : ''}</td>
            <td class="small">${c.primary_key && html`<span class="tag key">primary key</span> `}
              ${link && html`→ <a href=${`#/projects/${encodeURIComponent(project.name)}/database/${encodeURIComponent(link.table)}`}>${link.table}</a>.${linkText(link).to}`}</td>
          </tr>`;
        })}</tbody>
      </table>
      ${table.links.length > 0 && html`<p class="small"><strong>Links:</strong>${' '}
        ${table.links.map((l, i) => { const t = linkText(l); return html`${i ? '; ' : ''}(${t.from}) → ${l.table} (${t.to})${t.actions ? ` ${t.actions}` : ''}`; })}</p>`}
      ${pointing.length > 0 && html`<p class="small"><strong>Linked from:</strong>${' '}
        ${pointing.map((l, i) => html`${i ? '; ' : ''}${l.from}.${linkText(l).from}`)}</p>`}
      <p class="small"><strong>Indexes:</strong>${' '}${indexes.length
        ? indexes.map((i, n) => html`${n ? '; ' : ''}<code>${i.name}</code> (${i.columns.join(', ')})${i.unique ? ' unique' : ''}`)
        : html`<span class="muted">none besides the keys'</span>`}</p>
    </div>`}
    <${RowsGrid} api=${api} project=${project} table=${table} tables=${structure.tables} />
  </div>`;
}

function ViewView({ api, project, view }) {
  return html`<div>
    <h2 class="flush">View <code>${view.name}</code></h2>
    <pre class="sql">${view.sql.trim()}</pre>
    <${RowsGrid} api=${api} project=${project} table=${{ name: view.name, columns: [], links: [] }} tables=${[]} isView=${true} />
  </div>`;
}
