// App templates: the catalogue (GET /app-templates) as cards, installable or not and why. A
// card opens its install: into a new project (made first, its name checked as typed) or an
// existing one, with the installer's own form checked as typed in the installer's words
// (src/templates.js). The install answers when done, or 202 with its progress, which is then
// followed (GET on the same address) until installed or failed; at the end, the schedules and
// the names of the secrets it made.
import { html, useState, useEffect, useRef } from '../ui.js';
import { ErrorNote, Loading } from '../parts.js';
import { formOf, formProblems, installBody, jsonBody, installState, scheduleLine } from '../templates.js';

const POLL_MS = 2000;

export function Templates({ api, me, slug, navigate }) {
  const [templates, setTemplates] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { api.appTemplates().then(setTemplates, setError); }, []);
  const chosen = templates && slug ? templates.find((t) => t.slug === slug) : null;
  return html`<section>
    <div class="title-bar"><h1>App templates</h1></div>
    <p class="muted">Starter apps installed into a project of yours: the release, its start command, secrets, schedules and
      database made for you. Everything an install does, you can change afterwards on the project's pages.</p>
    <${ErrorNote} error=${error} />
    ${!templates && !error && html`<${Loading} what="the catalogue" />`}
    ${chosen && html`<${Install} key=${chosen.slug} api=${api} me=${me} template=${chosen} onClose=${() => navigate('#/templates')} />`}
    ${templates && slug && !chosen && html`<p class="error">No app template named ${slug}.</p>`}
    ${templates && html`<div class="cards">${templates.map((t) => html`<article class=${`card template ${t.installable ? '' : 'unavailable'} ${t.slug === slug ? 'chosen' : ''}`}
        aria-label=${`Template ${t.name}`}>
      <h2>${t.name} ${t.version && html`<span class="tag">${t.version}</span>`}</h2>
      <p>${t.description}</p>
      ${t.installable
        ? html`<p class="field-note good">Installable</p>`
        : html`<p class="field-note bad">Not installable here: ${t.unavailable || 'no installer for it is loaded on this server'}.</p>`}
      ${(t.installable || formOf(t.slug)) && html`<a class=${`button ${t.installable ? 'primary' : ''}`}
        href=${`#/templates/${encodeURIComponent(t.slug)}`}>${t.installable ? 'Install…' : 'See its form'}</a>`}
    </article>`)}</div>`}
  </section>`;
}

function Install({ api, me, template, onClose }) {
  const fields = formOf(template.slug);
  const [where, setWhere] = useState('new');
  const [projects, setProjects] = useState(null);
  const [existing, setExisting] = useState('');
  const [newName, setNewName] = useState(template.slug);
  const [team, setTeam] = useState('');
  const [check, setCheck] = useState(null);
  const [values, setValues] = useState({});
  const [json, setJson] = useState('');
  const [touched, setTouched] = useState(new Set());
  const [error, setError] = useState(null);
  const [run, setRun] = useState(null); // {project, state, progress, ...}
  const alive = useRef(true);
  useEffect(() => () => { alive.current = false; }, []);

  useEffect(() => {
    api.projects().then((list) => {
      setProjects(list);
      if (list.length) setExisting(list[0].name);
    }, setError);
  }, []);
  const latest = useRef(0);
  useEffect(() => {
    const asked = ++latest.current; // only the answer for what is typed now counts
    setCheck(null);
    if (where !== 'new' || !newName.trim()) return undefined;
    const timer = setTimeout(() => api.available(newName.trim(), team).then(
      (r) => asked === latest.current && setCheck(r),
      () => asked === latest.current && setCheck(null)), 200);
    return () => clearTimeout(timer);
  }, [where, newName, team]);

  const problems = fields ? formProblems(fields, values) : {};
  const parsed = fields ? null : jsonBody(json);
  const ready = template.installable && Object.keys(problems).length === 0 && !(parsed && parsed.problem) &&
    (where === 'new' ? newName.trim() && !(check && (check.problem || !check.available)) : existing);

  const follow = async (projectName) => {
    for (;;) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      if (!alive.current) return;
      const answer = await api.templateInstall(projectName, template.slug);
      const state = installState(answer);
      if (!alive.current) return;
      setRun({ ...state, app: state.project, project: projectName });
      if (state.state !== 'installing') return;
    }
  };

  const submit = async (e) => {
    e.preventDefault();
    setTouched(new Set(fields ? fields.map((f) => f.name) : []));
    if (!ready) return;
    setError(null);
    let projectName = existing;
    try {
      if (where === 'new') {
        setRun({ state: 'making', project: newName.trim() });
        const made = await api.createProject(newName.trim(), team);
        projectName = made.name;
      }
      setRun({ state: 'installing', project: projectName, progress: '' });
      const body = fields ? installBody(fields, values) : parsed.body;
      const answer = await api.installTemplate(projectName, template.slug, body);
      const state = installState(answer);
      setRun({ ...state, app: state.project, project: projectName });
      if (state.state === 'installing') await follow(projectName);
    } catch (err) {
      setError(err);
      setRun((r) => (r && r.state === 'making' ? null : r && { ...r, state: 'refused' }));
    }
  };

  const busy = run && (run.state === 'making' || run.state === 'installing');
  return html`<div class="panel install" aria-label=${`Install ${template.name}`}>
    <div class="title-bar"><h2>Install ${template.name}</h2><button type="button" onClick=${onClose}>Close</button></div>
    ${!template.installable && html`<p class="warning">This server cannot install ${template.name}${': '}
      ${template.unavailable || 'no installer for it is loaded'}. Its form is shown so you can see what it asks.</p>`}
    ${!(run && run.state === 'installed') && html`<form onSubmit=${submit} autocomplete="off">
      <fieldset>
        <legend>Into</legend>
        <label class="check"><input type="radio" name="where" checked=${where === 'new'} onChange=${() => setWhere('new')} /> a new project</label>
        ${where === 'new' && html`<div class="indent">
          <label for="install-name">Project name</label>
          <input id="install-name" value=${newName} spellcheck=${false} onInput=${(e) => setNewName(e.currentTarget.value)} />
          ${check && check.problem && html`<p class="field-note bad">${check.problem}</p>`}
          ${check && check.available && html`<p class="field-note good">Free. It will be at <code>${check.host}</code></p>`}
          ${check && !check.available && !check.problem && html`<p class="field-note bad">You already have a project called that.${' '}
            <button type="button" class="link" onClick=${() => setNewName(check.suggestion)}>Use ${check.suggestion}</button></p>`}
          ${me.teams.length > 0 && html`<label for="install-team">Owner</label>
            <select id="install-team" value=${team} onChange=${(e) => setTeam(e.currentTarget.value)}>
              <option value="">You (${me.slug})</option>
              ${me.teams.map((t) => html`<option value=${t.slug}>Team ${t.slug}</option>`)}
            </select>`}
        </div>`}
        <label class="check"><input type="radio" name="where" checked=${where === 'existing'} disabled=${!projects || !projects.length}
          onChange=${() => setWhere('existing')} /> an existing project${projects && !projects.length ? ' (you have none yet)' : ''}</label>
        ${where === 'existing' && projects && html`<div class="indent">
          <label for="install-project">Project</label>
          <select id="install-project" value=${existing} onChange=${(e) => setExisting(e.currentTarget.value)}>
            ${projects.map((p) => html`<option value=${p.name}>${p.name}${p.live ? ' (has a live release, which the install replaces)' : ''}</option>`)}
          </select></div>`}
      </fieldset>
      ${fields && fields.length === 0 && html`<p class="muted">${template.name}'s installer asks for nothing: it generates what it needs (its secrets are kept when it runs again).</p>`}
      ${fields && fields.map((f) => html`<div>
        <label for=${`install-${f.name}`}>${f.label}${f.required ? '' : html` <span class="muted small">(optional)</span>`}</label>
        <input id=${`install-${f.name}`} type=${f.type} value=${values[f.name] || ''} placeholder=${f.placeholder || ''} spellcheck=${false}
          autocomplete=${f.type === 'password' ? 'new-password' : 'off'}
          onInput=${(e) => setValues({ ...values, [f.name]: e.currentTarget.value })}
          onBlur=${() => setTouched(new Set([...touched, f.name]))} />
        ${f.help && html`<p class="field-note muted small">${f.help}</p>`}
        ${problems[f.name] && (touched.has(f.name) || values[f.name]) && html`<p class="field-note bad">${problems[f.name]}</p>`}
      </div>`)}
      ${!fields && html`<div>
        <label for="install-body">The installer's fields, as a JSON object <span class="muted small">(see the template's own documentation; empty for none)</span></label>
        <textarea id="install-body" rows="4" spellcheck=${false} value=${json} onInput=${(e) => setJson(e.currentTarget.value)}></textarea>
        ${parsed.problem && html`<p class="field-note bad">${parsed.problem}</p>`}
      </div>`}
      <${ErrorNote} error=${error} onUse=${(s) => { setWhere('new'); setNewName(s); setError(null); }} />
      <button type="submit" class="primary" disabled=${busy || !template.installable}>${busy ? 'Installing…' : `Install ${template.name}`}</button>
    </form>`}
    ${run && html`<${Progress} run=${run} />`}
  </div>`;
}

function Progress({ run }) {
  const link = run.project && `#/projects/${encodeURIComponent(run.project)}`;
  return html`<div class="upload" aria-live="polite">
    ${run.state === 'making' && html`<p class="status building">Making the project ${run.project}…</p>`}
    ${run.state === 'installing' && html`<p class="status building">Installing into <a href=${link}>${run.project}</a>…</p>
      <p class="small">${run.progress || 'Started; the installer reports its steps here and in the project\'s logs.'}</p>`}
    ${run.state === 'refused' && html`<p class="small">Nothing was installed. The project <a href=${link}>${run.project}</a> is
      there; install into it again as an existing project once the refusal above is fixed.</p>`}
    ${run.state === 'failed' && html`<div class="error" role="alert">The install failed: ${run.error}. The project is as the installer left it;
      run the install again when the cause is fixed.</div>`}
    ${run.state === 'installed' && html`<div>
      <p class="status live">Installed into <a href=${link}>${run.project}</a></p>
      ${run.app && run.app.url && html` <a class="button" href=${run.app.url} target="_blank" rel="noopener noreferrer">Open the app ↗</a>`}
      <div><strong>Schedules it made:</strong> ${run.schedules.length
        ? html`<ul>${run.schedules.map((s) => html`<li><code>${scheduleLine(s)}</code></li>`)}</ul>` : 'none'}</div>
      <p><strong>Secrets it made:</strong> ${run.secrets.length ? run.secrets.map((s, i) => html`${i ? ', ' : ''}<code>${s}</code>`) : 'none'}
        <span class="muted small"> (names only: values are never shown)</span></p>
    </div>`}
  </div>`;
}
