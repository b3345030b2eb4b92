// Domains: claim a host, then the exact TXT and CNAME records to publish, each value with a copy
// button; verify says why it failed in the API's words (no TXT record, the wrong value, DNS not
// answering). Only a verified domain routes traffic; an unverified claim expires.
import { html, useState, useEffect } from '../ui.js';
import { ErrorNote, Loading, ActionButton, Note, CopyButton } from '../parts.js';
import { formatTime } from '../format.js';

export function Domains({ api, project }) {
  const [domains, setDomains] = useState(null);
  const [error, setError] = useState(null);
  const reload = () => api.domains(project.name).then((d) => { setError(null); setDomains(d); }, setError);
  useEffect(() => { reload(); }, [project.name]);

  return html`<div>
    <p class="muted">Serve the app at your own domain: claim it here, publish the two records at your DNS
      provider, then verify. The TXT record proves the domain is yours; the CNAME sends its traffic
      to <code>${project.host}</code>. Nothing is served until it is verified, and a claim not
      verified within a few days expires.</p>
    <${AddDomain} api=${api} project=${project} onAdded=${reload} />
    <${ErrorNote} error=${error} />
    ${!domains && !error && html`<${Loading} what="domains" />`}
    ${domains && domains.length === 0 && html`<p class="muted">No domains yet.</p>`}
    ${domains && domains.map((d) => html`<${DomainCard} key=${d.host} api=${api} project=${project} domain=${d} onChange=${reload} />`)}
  </div>`;
}

function AddDomain({ api, project, onAdded }) {
  const [host, setHost] = useState('');
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      await api.addDomain(project.name, host);
      setHost('');
      onAdded();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="row inline-form" onSubmit=${submit} autocomplete="off">
    <label for="domain-host" class="check">Domain</label>
    <input id="domain-host" value=${host} spellcheck=${false} placeholder="www.example.com"
      onInput=${(e) => setHost(e.currentTarget.value)} />
    <button type="submit" class="primary" disabled=${!host.trim()}>Add domain</button>
  </form>
  <${ErrorNote} error=${error} />`;
}

function DomainCard({ api, project, domain, onChange }) {
  const [error, setError] = useState(null);
  const [verified, setVerified] = useState(false);
  return html`<article class="panel domain" aria-label=${`Domain ${domain.host}`}>
    <div class="title-bar">
      <h2>${domain.host} <span class=${`status ${domain.verified ? 'live' : ''}`}>${domain.verified ? 'verified' : 'not verified'}</span></h2>
      <div class="actions">
        <${ActionButton} busyText="Asking DNS…" onError=${setError}
          action=${async () => { setVerified(false); await api.verifyDomain(project.name, domain.host); setVerified(true); onChange(); }}>
          ${domain.verified ? 'Verify again' : 'Verify'}<//>
        <${ActionButton} kind="danger" busyText="Removing…" onError=${setError}
          action=${async () => { await api.deleteDomain(project.name, domain.host); onChange(); }}>Remove<//>
      </div>
    </div>
    <${ErrorNote} error=${error} />
    ${verified && html`<${Note}>${domain.host} is verified: its traffic now reaches the app.<//>`}
    <table class="list records">
      <thead><tr><th>Type</th><th>Name</th><th>Value</th></tr></thead>
      <tbody>${domain.records.map((r) => html`<tr>
        <td>${r.type}</td>
        <td><code>${r.name}</code> <${CopyButton} text=${r.name} what=${`${r.type} name`} /></td>
        <td><code>${r.value}</code> <${CopyButton} text=${r.value} what=${`${r.type} value`} /></td></tr>`)}</tbody>
    </table>
    <p class="muted small">Claimed ${formatTime(domain.created_at)}${domain.verified_at ? `, verified ${formatTime(domain.verified_at)}` : ''}.</p>
  </article>`;
}
