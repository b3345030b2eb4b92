// A table's rows, a page at a time, through the rows API's own grammar (src/rows.js builds
// every query): filters, order by a column's header, linked rows embedded through declared
// foreign keys, paging. A table with a primary key can be edited: a cell (click it), a new row,
// the selected rows deleted. One without a key is read-only (the API could not name a row),
// and says so; so is a view. A big value is cut in the grid and opens whole in a side panel.
import { html, useState, useEffect, useRef } from '../ui.js';
import { ErrorNote, Loading, ActionButton, Note } from '../parts.js';
import {
  OPERATORS, rowsQuery, filterProblem, nextOrder, primaryKey, rowsByKey, embedsOf, embedAlias,
  cellPreview, cellText, inputValue, editText, insertBody,
} from '../rows.js';

const PAGE = 50;
let filterIds = 0;

export function RowsGrid({ api, project, table, tables, isView = false }) {
  const key = isView ? [] : primaryKey(table);
  const editable = !isView && key.length > 0;
  const [filters, setFilters] = useState([]); // as typed
  const [applied, setApplied] = useState([]); // as sent
  const [order, setOrder] = useState([]);
  const [embeds, setEmbeds] = useState([]);
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState(null); // {rows, total, limit, offset}
  const [error, setError] = useState(null);
  const [selected, setSelected] = useState(new Set()); // indexes into page.rows
  const [panel, setPanel] = useState(null); // {row, column, value, editable}
  const [editing, setEditing] = useState(null); // {row, column}
  const [inserting, setInserting] = useState(false);
  const [note, setNote] = useState('');
  const [actionError, setActionError] = useState(null);

  const query = rowsQuery({ filters: applied, order, embeds, limit: PAGE, offset });
  const load = () =>
    api.rows(project.name, table.name, query).then(
      (p) => {
        setError(null);
        setPage(p);
        setSelected(new Set());
      },
      (err) => {
        setError(err);
        setPage(null);
      },
    );
  useEffect(() => { load(); }, [project.name, table.name, query]);

  const columns = table.columns.length
    ? table.columns
    : page && page.rows.length
      ? Object.keys(page.rows[0]).map((name) => ({ name, type: '' }))
      : [];
  const embedColumns = embeds.map(embedAlias);
  const offered = isView ? [] : embedsOf(tables, table.name);

  const saveCell = async (row, column, text, setNull) => {
    const col = columns.find((c) => c.name === column);
    const value = setNull ? null : inputValue(text, col.type);
    await api.updateRows(project.name, table.name, rowsByKey(key, [row]), { [column]: value });
    setEditing(null);
    setPanel(null);
    setNote(`${column} is saved.`);
    await load();
  };

  const deleteSelected = async () => {
    const rows = [...selected].map((i) => page.rows[i]);
    const answer = await api.deleteRows(project.name, table.name, rowsByKey(key, rows));
    setNote(answer.deleted === 1 ? '1 row deleted.' : `${answer.deleted} rows deleted.`);
    await load();
  };

  const from = page ? page.offset + 1 : 0;
  const to = page ? page.offset + page.rows.length : 0;
  return html`<div class="rows">
    ${!editable && html`<p class="warning" role="note">${isView
      ? 'A view is read-only here: change the rows of its tables.'
      : html`<strong>Read-only:</strong> <code>${table.name}</code> has no primary key, so the API cannot name one row to change or delete.
        Add one (<code>alter table ${table.name} add primary key (…)</code>) or change its rows in the SQL editor.`}</p>`}
    <${Filters} columns=${columns} filters=${filters} setFilters=${setFilters}
      onApply=${() => { setApplied(filters.map((f) => ({ ...f }))); setOffset(0); }} />
    ${offered.length > 0 && html`<fieldset class="embeds"><legend>Show linked rows</legend>
      ${offered.map((e) => {
        const on = embeds.some((x) => x.table === e.table && x.hint === e.hint && x.many === e.many);
        return html`<label class="check"><input type="checkbox" checked=${on} onChange=${() => {
          setEmbeds(on ? embeds.filter((x) => !(x.table === e.table && x.hint === e.hint && x.many === e.many)) : [...embeds, e]);
          setOffset(0);
        }} /> ${e.label}</label>`;
      })}</fieldset>`}
    <div class="grid-bar">
      <span class="small muted">${page ? (page.total === 0 ? 'No rows' : `Rows ${from}–${to} of ${page.total}`) : ''}</span>
      <span class="grow"></span>
      ${editable && html`<button type="button" onClick=${() => setInserting(!inserting)} aria-expanded=${inserting}>Insert a row</button>`}
      ${editable && html`<${ActionButton} kind="danger" busyText="Deleting…" disabled=${selected.size === 0} onError=${setActionError}
        action=${deleteSelected}>${selected.size > 1 ? `Delete ${selected.size} rows` : 'Delete the selected row'}<//>`}
      <button type="button" disabled=${!page || offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>← Previous</button>
      <button type="button" disabled=${!page || to >= page.total} onClick=${() => setOffset(offset + PAGE)}>Next →</button>
    </div>
    <p class="small muted">GET <code class="wrap">/projects/${project.name}/tables/${table.name}/rows?${decodeURIComponent(query)}</code></p>
    ${inserting && html`<${InsertForm} api=${api} project=${project} table=${table} columns=${columns}
      onDone=${async (row) => { setInserting(false); setNote('The row is inserted.'); await load(); }} />`}
    <${ErrorNote} error=${error} />
    <${ErrorNote} error=${actionError} />
    ${note && html`<${Note}>${note}<//>`}
    ${!page && !error && html`<${Loading} what="rows" />`}
    ${page && html`<div class="grid-scroll"><table class="grid" aria-label=${`Rows of ${table.name}`}>
      <thead><tr>
        ${editable && html`<th class="pick"><input type="checkbox" aria-label="Select every row on this page"
          checked=${page.rows.length > 0 && selected.size === page.rows.length}
          onChange=${(e) => setSelected(e.currentTarget.checked ? new Set(page.rows.map((_, i) => i)) : new Set())} /></th>`}
        ${columns.map((c) => {
          const o = order.find((x) => x.column === c.name);
          return html`<th aria-sort=${o ? (o.desc ? 'descending' : 'ascending') : undefined}>
            <button type="button" class="sort" title="Order by this column" onClick=${() => { setOrder(nextOrder(order, c.name)); setOffset(0); }}>
              ${c.name}${o ? (o.desc ? ' ▼' : ' ▲') : ''}</button>
            ${c.type && html`<div class="type">${c.type}${c.primary_key ? ' · key' : ''}</div>`}</th>`;
        })}
        ${embedColumns.map((a) => html`<th>${a}<div class="type">linked</div></th>`)}
      </tr></thead>
      <tbody>${page.rows.map((row, i) => html`<tr key=${i} class=${selected.has(i) ? 'picked' : ''}>
        ${editable && html`<td class="pick"><input type="checkbox" aria-label=${`Select row ${from + i}`} checked=${selected.has(i)}
          onChange=${(e) => { const s = new Set(selected); if (e.currentTarget.checked) s.add(i); else s.delete(i); setSelected(s); }} /></td>`}
        ${columns.map((c) => editing && editing.row === row && editing.column === c.name
          ? html`<td class="editing"><${CellEditor} value=${row[c.name]} column=${c}
              onSave=${(text, setNull) => saveCell(row, c.name, text, setNull)} onCancel=${() => setEditing(null)} /></td>`
          : html`<${Cell} value=${row[c.name]} column=${c.name} editable=${editable && !c.generated}
              onEdit=${() => { setNote(''); setEditing({ row, column: c.name }); }}
              onOpen=${() => setPanel({ row, column: c.name, value: row[c.name], editable })} />`)}
        ${embedColumns.map((a) => html`<${Cell} value=${row[a]} column=${a} editable=${false}
          onOpen=${() => setPanel({ row, column: a, value: row[a], editable: false })} />`)}
      </tr>`)}</tbody>
    </table></div>`}
    ${panel && html`<${ValuePanel} title=${panel.column} value=${panel.value}
      where=${key.length ? `the row where ${key.map((k) => `${k} = ${panel.row[k]}`).join(' and ')}` : ''}
      type=${(columns.find((c) => c.name === panel.column) || {}).type}
      onSave=${panel.editable ? (text, setNull) => saveCell(panel.row, panel.column, text, setNull) : null}
      onClose=${() => setPanel(null)} />`}
  </div>`;
}

function Cell({ value, column, editable, onEdit, onOpen }) {
  const { text, big } = cellPreview(value);
  const shown = text === null ? html`<span class="null">NULL</span>` : text;
  if (big) {
    return html`<td><button type="button" class="cell big" aria-label=${`Open the whole value of ${column}`} onClick=${onOpen}>${shown}</button></td>`;
  }
  if (editable) {
    return html`<td><button type="button" class="cell" aria-label=${`Edit ${column}: ${text === null ? 'NULL' : text}`} onClick=${onEdit}>${shown}</button></td>`;
  }
  return html`<td>${shown}</td>`;
}

function CellEditor({ value, column, onSave, onCancel }) {
  const [text, setText] = useState(editText(value));
  const [error, setError] = useState(null);
  const input = useRef(null);
  useEffect(() => { input.current && input.current.focus(); }, []);
  const save = async (setNull = false) => {
    setError(null);
    try {
      await onSave(text, setNull);
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="cell-editor" onSubmit=${(e) => { e.preventDefault(); save(); }}>
    <input ref=${input} value=${text} aria-label=${`New value of ${column.name}`} spellcheck=${false}
      onInput=${(e) => setText(e.currentTarget.value)} onKeyDown=${(e) => e.key === 'Escape' && onCancel()} />
    <button type="submit" class="primary">Save</button>
    ${!column.not_null && html`<button type="button" onClick=${() => save(true)}>Set NULL</button>`}
    <button type="button" onClick=${onCancel}>Cancel</button>
    <${ErrorNote} error=${error} />
  </form>`;
}

// The whole of a big value beside the grid, editable in a text box when the table is.
export function ValuePanel({ title, value, type, where = '', onSave, onClose }) {
  const [text, setText] = useState(editText(value));
  const [error, setError] = useState(null);
  useEffect(() => setText(editText(value)), [value]);
  const closeRef = useRef(null);
  useEffect(() => { closeRef.current && closeRef.current.focus(); }, []);
  const length = (cellText(value) || '').length;
  return html`<aside class="side-panel" role="dialog" aria-label=${`The whole value of ${title}`}
      onKeyDown=${(e) => e.key === 'Escape' && onClose()}>
    <div class="title-bar">
      <h2 class="flush"><code>${title}</code></h2>
      <button type="button" ref=${closeRef} onClick=${onClose}>Close</button>
    </div>
    <p class="small muted">${value === null ? 'NULL' : `${length.toLocaleString('en')} characters`}${type ? `, ${type}` : ''}${where ? `, in ${where}` : ''}</p>
    ${onSave
      ? html`<textarea class="value" spellcheck=${false} value=${text} aria-label=${`Value of ${title}`}
          onInput=${(e) => setText(e.currentTarget.value)}></textarea>
        <${ErrorNote} error=${error} />
        <div class="actions"><button type="button" class="primary" onClick=${async () => {
          setError(null);
          try { await onSave(text, false); } catch (err) { setError(err); }
        }}>Save</button></div>`
      : html`<pre class="value">${text}</pre>`}
  </aside>`;
}

function Filters({ columns, filters, setFilters, onApply }) {
  const update = (id, change) => setFilters(filters.map((f) => (f.id === id ? { ...f, ...change } : f)));
  const add = () => setFilters([...filters, { id: ++filterIds, column: columns[0] ? columns[0].name : '', op: 'eq', value: '', negate: false }]);
  return html`<form class="filters" onSubmit=${(e) => { e.preventDefault(); onApply(); }} aria-label="Filters">
    ${filters.map((f) => {
      const problem = filterProblem(f);
      return html`<div class="filter-row">
        <select aria-label="Column" value=${f.column} onChange=${(e) => update(f.id, { column: e.currentTarget.value })}>
          ${columns.map((c) => html`<option value=${c.name}>${c.name}</option>`)}</select>
        <label class="check"><input type="checkbox" checked=${f.negate} onChange=${(e) => update(f.id, { negate: e.currentTarget.checked })} /> not</label>
        <select aria-label="Operator" value=${f.op} onChange=${(e) => update(f.id, { op: e.currentTarget.value })}>
          ${OPERATORS.map(([op, words]) => html`<option value=${op}>${op}: ${words}</option>`)}</select>
        <input aria-label="Value" value=${f.value} spellcheck=${false}
          placeholder=${f.op === 'in' ? 'a, b, "c,d"' : f.op === 'is' ? 'null' : 'value'}
          onInput=${(e) => update(f.id, { value: e.currentTarget.value })} />
        <button type="button" aria-label="Remove this filter" onClick=${() => setFilters(filters.filter((x) => x.id !== f.id))}>✕</button>
        ${problem && html`<span class="field-note bad">${problem}</span>`}
      </div>`;
    })}
    <div class="row">
      <button type="button" onClick=${add} disabled=${!columns.length}>Add a filter</button>
      ${filters.length > 0 && html`<button type="submit" class="primary">Apply filters</button>`}
    </div>
  </form>`;
}

function InsertForm({ api, project, table, columns, onDone }) {
  const [fields, setFields] = useState({});
  const [nulls, setNulls] = useState(new Set());
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const row = insertBody(columns, fields, nulls);
      const stored = await api.insertRows(project.name, table.name, row);
      onDone(stored);
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="panel insert" onSubmit=${submit} aria-label=${`Insert a row into ${table.name}`}>
    <h3>New row in <code>${table.name}</code></h3>
    <p class="small muted">A field left empty takes the column's default (or NULL).</p>
    <div class="insert-grid">${columns.map((c) => html`<label for=${`insert-${c.name}`}>${c.name}
        <span class="type">${c.type}${c.not_null && !c.default_value ? ', required' : ''}</span></label>
      <div class="row">
        <input id=${`insert-${c.name}`} value=${fields[c.name] || ''} spellcheck=${false} disabled=${nulls.has(c.name)}
          placeholder=${c.default_value ? `default: ${c.default_value}` : c.not_null ? '' : 'NULL'}
          onInput=${(e) => setFields({ ...fields, [c.name]: e.currentTarget.value })} />
        ${!c.not_null && html`<label class="check"><input type="checkbox" checked=${nulls.has(c.name)} onChange=${(e) => {
          const n = new Set(nulls);
          if (e.currentTarget.checked) n.add(c.name); else n.delete(c.name);
          setNulls(n);
        }} /> NULL</label>`}
      </div>`)}</div>
    <${ErrorNote} error=${error} />
    <button type="submit" class="primary">Insert</button>
  </form>`;
}
