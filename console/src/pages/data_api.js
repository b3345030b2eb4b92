// Data API: what the project's publishable key opens at /_data on the project's own address.
// The key with copy and rotate; a grid of every table and view by operation (read, create,
// update, delete), each switch one PUT; the functions of `public` with a switch each; and a
// ready `fetch` snippet for each open table (src/snippet.js).
import { html, useState, useEffect } from '../ui.js';
import { ErrorNote, Loading, ActionButton, CopyButton, Note } from '../parts.js';
import { fetchSnippet, OPERATIONS, openOperations } from '../snippet.js';

// The functions a key could call: plain functions of `public` (not procedures or aggregates),
// read with the API's /query like any other statement.
const FUNCTIONS_SQL = "select p.proname as name, pg_get_function_identity_arguments(p.oid) as args from pg_proc p " +
  "join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public' and p.prokind = 'f' order by 1, 2";

export function DataApi({ api, project }) {
  const [settings, setSettings] = useState(null);
  const [tables, setTables] = useState([]); // from /tables, for the snippets' columns
  const [error, setError] = useState(null);
  const reload = () =>
    api.dataApi(project.name).then((s) => { setError(null); setSettings(s); }, setError);
  useEffect(() => {
    reload();
    api.tables(project.name).then(setTables, () => {});
  }, [project.name]);

  if (error && !settings) return html`<div><${ErrorNote} error=${error} /></div>`;
  if (!settings) return html`<${Loading} what="the data API's settings" />`;
  const names = Object.keys(settings.tables).sort();
  const open = names.filter((n) => openOperations(settings.tables[n]).length > 0);
  return html`<div>
    <p>Web pages read and write the tables opened here at <code>${`${project.url}/_data/<table>`}</code>, with the
      publishable key in an <code>apikey</code> header (PostgREST's grammar, so <code>@supabase/postgrest-js</code> works too).
      Every table starts closed. The key is public by design: anyone with a page that uses it can do what is open here, so
      open only what any visitor may do.</p>
    <${Key} api=${api} project=${project} settings=${settings} onRotated=${(key) => setSettings({ ...settings, key })} />
    <h2>Tables and views</h2>
    ${names.length === 0 && html`<p class="muted">No tables yet: make one on the Database tab.</p>`}
    ${names.length > 0 && html`<table class="list grants" aria-label="What the publishable key may do">
      <thead><tr><th>Table</th>${OPERATIONS.map((op) => html`<th>${op}</th>`)}</tr></thead>
      <tbody>${names.map((n) => html`<${GrantRow} key=${n} api=${api} project=${project} table=${n} flags=${settings.tables[n]}
        onChanged=${(flags) => setSettings((s) => ({ ...s, tables: { ...s.tables, [n]: flags } }))} />`)}</tbody>
    </table>`}
    <${Functions} api=${api} project=${project} enabled=${settings.functions}
      onChanged=${(fn, on) => setSettings((s) => ({ ...s, functions: on ? [...new Set([...s.functions, fn])].sort() : s.functions.filter((f) => f !== fn) }))} />
    <h2>Use it from a page</h2>
    ${open.length === 0 && html`<p class="muted">Open a table above to get its snippet.</p>`}
    ${open.map((n) => {
      const t = tables.find((x) => x.name === n);
      const code = fetchSnippet({ projectUrl: project.url, table: n, key: settings.key, flags: settings.tables[n], columns: t ? t.columns.map((c) => c.name) : [] });
      return html`<div class="snippet">
        <div class="title-bar"><h3 class="flush"><code>${n}</code></h3><${CopyButton} text=${code} label="Copy" what=${`the snippet of ${n}`} /></div>
        <pre class="code" aria-label=${`fetch snippet of ${n}`}>${code}</pre>
      </div>`;
    })}
  </div>`;
}

function Key({ api, project, settings, onRotated }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState(null);
  const [rotated, setRotated] = useState(false);
  return html`<div class="panel key-panel">
    <h2>Publishable key</h2>
    <div class="row"><code class="token" aria-label="Publishable key">${settings.key}</code>
      <${CopyButton} text=${settings.key} label="Copy" what="the publishable key" />
      ${confirming
        ? html`<${ActionButton} kind="danger" busyText="Rotating…" onError=${setError} action=${async () => {
            const answer = await api.rotateDataApiKey(project.name);
            setConfirming(false);
            setRotated(true);
            onRotated(answer.key);
          }}>Make a new key now<//>
          <button type="button" onClick=${() => setConfirming(false)}>Keep this one</button>`
        : html`<button type="button" onClick=${() => { setRotated(false); setConfirming(true); }}>Rotate</button>`}
    </div>
    ${confirming && html`<p class="field-note bad">A new key stops this one at once, on every node: pages that use it fail until they carry the new one.</p>`}
    ${rotated && html`<${Note}>A new key is in place; the old one no longer works.<//>`}
    <${ErrorNote} error=${error} />
  </div>`;
}

// A switch shows what was asked at once; the API's answer then says what is so (a refusal
// puts it back, with the reason beside it).
function GrantRow({ api, project, table, flags, onChanged }) {
  const [error, setError] = useState(null);
  const [pending, setPending] = useState({});
  const flip = async (op, on) => {
    setPending((p) => ({ ...p, [op]: on }));
    setError(null);
    try {
      const answer = await api.setDataApiTable(project.name, table, { [op]: on });
      onChanged({ read: answer.read, create: answer.create, update: answer.update, delete: answer.delete });
    } catch (err) {
      setError(err);
    } finally {
      setPending((p) => {
        const rest = { ...p };
        delete rest[op];
        return rest;
      });
    }
  };
  return html`<tr>
    <td><code>${table}</code><${ErrorNote} error=${error} /></td>
    ${OPERATIONS.map((op) => html`<td><input type="checkbox" checked=${op in pending ? pending[op] : !!flags[op]}
      aria-label=${`${op} ${table}`} onChange=${(e) => flip(op, e.currentTarget.checked)} /></td>`)}
  </tr>`;
}

function Functions({ api, project, enabled, onChanged }) {
  const [functions, setFunctions] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api.runSql(project.name, 'query', { sql: FUNCTIONS_SQL }).then((r) => setFunctions(r.rows), setError);
  }, [project.name]);
  const names = functions ? [...new Set([...functions.map((f) => f.name), ...enabled])].sort() : [];
  return html`<div>
    <h2>Functions</h2>
    <p class="muted small">An enabled function is called with <code>${`POST ${project.url}/_data/rpc/<name>`}</code> and runs as the project's role, whatever it does.</p>
    <${ErrorNote} error=${error} />
    ${!functions && !error && html`<${Loading} what="functions" />`}
    ${functions && names.length === 0 && html`<p class="muted">No functions in the database.</p>`}
    ${names.length > 0 && html`<ul class="switches">${names.map((n) => {
      const args = functions.filter((f) => f.name === n).map((f) => `(${f.args})`).join(' ');
      return html`<${FunctionSwitch} key=${n} api=${api} project=${project} name=${n} args=${args}
        gone=${!functions.some((f) => f.name === n)} on=${enabled.includes(n)} onChanged=${onChanged} />`;
    })}</ul>`}
  </div>`;
}

function FunctionSwitch({ api, project, name, args, gone, on, onChanged }) {
  const [error, setError] = useState(null);
  const [pending, setPending] = useState(null);
  return html`<li><label class="check"><input type="checkbox" checked=${pending === null ? on : pending} onChange=${async (e) => {
      const want = e.currentTarget.checked;
      setPending(want);
      setError(null);
      try {
        const answer = await api.setDataApiFunction(project.name, name, want);
        onChanged(name, answer.enabled);
      } catch (err) {
        setError(err);
      } finally {
        setPending(null);
      }
    }} /> <code>${name}</code><span class="muted small">${args}${gone ? ' (enabled, but no longer in the database)' : ''}</span></label>
    <${ErrorNote} error=${error} /></li>`;
}
