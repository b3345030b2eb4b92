// Logs: request, schedule, process and platform lines that follow live. The newest page first,
// then every two seconds the lines after the last answer's cursor (the logs route's `after`),
// while "Follow" is on and the page is open. Filters by kind and status; copy and download what
// the filters show.
import { html, useState, useEffect, useMemo, useRef } from '../ui.js';
import { ErrorNote, Loading, Note } from '../parts.js';
import { KINDS, STATUS_FILTERS, kindOf, filterLogs, mergeLogs, logText, logTime } from '../logs.js';

const POLL_MS = 2000;

export function Logs({ api, project }) {
  const [lines, setLines] = useState(null);
  const [error, setError] = useState(null);
  const [follow, setFollow] = useState(true);
  const [kinds, setKinds] = useState(new Set(KINDS));
  const [status, setStatus] = useState('all');
  const [copied, setCopied] = useState('');
  const cursor = useRef(null);

  // The newest lines, once.
  useEffect(() => {
    let gone = false;
    cursor.current = null;
    setLines(null);
    api.logs(project.name).then((page) => {
      if (gone) return;
      cursor.current = page.cursor;
      setLines(mergeLogs([], page.logs, { first: true }));
    }, (err) => !gone && setError(err));
    return () => { gone = true; };
  }, [project.name]);

  // Then what comes after, while following. A failed poll is shown and the next one tries again.
  useEffect(() => {
    if (!follow || lines === null) return undefined;
    let gone = false;
    let timer;
    const poll = async () => {
      try {
        const page = await api.logs(project.name, { after: cursor.current || '0' });
        if (gone) return;
        setError(null);
        cursor.current = page.cursor;
        if (page.logs.length) setLines((current) => mergeLogs(current || [], page.logs));
      } catch (err) {
        if (!gone) setError(err);
      }
      if (!gone) timer = setTimeout(poll, POLL_MS);
    };
    timer = setTimeout(poll, POLL_MS);
    return () => { gone = true; clearTimeout(timer); };
  }, [follow, lines === null, project.name]);

  const shown = useMemo(() => (lines ? filterLogs(lines, { kinds, status }) : []), [lines, kinds, status]);
  const toggle = (kind) => {
    const next = new Set(kinds);
    if (next.has(kind)) next.delete(kind);
    else next.add(kind);
    setKinds(next);
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(logText(shown));
      setCopied(`${shown.length} lines copied.`);
    } catch (err) {
      setCopied('');
      setError(err);
    }
  };
  const download = () => {
    const url = URL.createObjectURL(new Blob([logText(shown)], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${project.name}-logs.txt`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  return html`<div>
    <div class="row inline-form log-controls">
      ${KINDS.map((k) => html`<label class="check"><input type="checkbox" checked=${kinds.has(k)} onChange=${() => toggle(k)} /> ${k}</label>`)}
      <label for="log-status" class="check">Status</label>
      <select id="log-status" value=${status} onChange=${(e) => setStatus(e.currentTarget.value)}>
        ${STATUS_FILTERS.map(([id, label]) => html`<option value=${id}>${label}</option>`)}
      </select>
      <label class="check"><input type="checkbox" checked=${follow} onChange=${(e) => setFollow(e.currentTarget.checked)} /> Follow</label>
      <button type="button" onClick=${copy} disabled=${!shown.length}>Copy</button>
      <button type="button" onClick=${download} disabled=${!shown.length}>Download</button>
    </div>
    <${ErrorNote} error=${error} />
    ${copied && html`<${Note}>${copied}<//>`}
    ${lines === null && !error && html`<${Loading} what="the log" />`}
    ${lines && html`<p class="muted small">${shown.length} of ${lines.length} lines${follow ? ', following: new lines appear at the top' : ''}.
      Times are UTC.</p>`}
    ${lines && lines.length === 0 && html`<p class="muted">Nothing logged yet: requests, the app's output and platform events appear here.</p>`}
    ${lines && lines.length > 0 && shown.length === 0 && html`<p class="muted">No line matches the filters.</p>`}
    ${shown.length > 0 && html`<table class="list logs">
      <thead><tr><th>Time</th><th>Kind</th><th>Line</th></tr></thead>
      <tbody>${shown.slice().reverse().map((e) => html`<tr key=${e.cursor}>
        <td class="nowrap">${logTime(e.at)}</td><td><span class="tag">${kindOf(e)}</span></td>
        <td>${e.method
          ? html`<code>${e.method} ${e.path}</code> <span class=${e.status >= 400 ? 'bad' : ''}>${e.status}</span>
              ${e.ms !== null && html`<span class="muted"> ${e.ms} ms</span>`}
              ${kindOf(e) === 'schedule' && html`<span class="muted"> by schedule ${e.message.slice(0, 8)}</span>`}`
          : html`<code class="wrap">${e.message}</code>`}</td></tr>`)}</tbody>
    </table>`}
  </div>`;
}
