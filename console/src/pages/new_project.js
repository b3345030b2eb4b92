// A new project: the name is checked as it is typed (GET /projects/available), a free name can
// be generated (GET /projects/suggest), and the project may go to one of the caller's teams.
import { html, useState, useEffect, useRef } from '../ui.js';
import { ErrorNote } from '../parts.js';

export function NewProject({ api, me, navigate }) {
  const [name, setName] = useState('');
  const [team, setTeam] = useState('');
  const [check, setCheck] = useState(null);
  const [checkError, setCheckError] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const latest = useRef(0);

  useEffect(() => {
    const asked = ++latest.current;
    setCheckError(null);
    if (!name.trim()) {
      setCheck(null);
      return undefined;
    }
    const timer = setTimeout(() => {
      api.available(name.trim(), team).then(
        (r) => asked === latest.current && setCheck(r),
        (e) => asked === latest.current && setCheckError(e),
      );
    }, 200);
    return () => clearTimeout(timer);
  }, [name, team]);

  const suggest = async () => {
    setError(null);
    try {
      setName(await api.suggest());
    } catch (e) {
      setError(e);
    }
  };

  const create = async (e) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const project = await api.createProject(name.trim(), team);
      navigate(`#/projects/${encodeURIComponent(project.name)}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  const use = (suggestion) => {
    setName(suggestion);
    setError(null);
  };

  return html`<section class="narrow">
    <h1>New project</h1>
    <form onSubmit=${create} autocomplete="off">
      <label for="project-name">Name</label>
      <div class="row">
        <input id="project-name" value=${name} spellcheck=${false} placeholder="blog"
          onInput=${(e) => setName(e.currentTarget.value)} aria-describedby="name-check" />
        <button type="button" onClick=${suggest}>Suggest a name</button>
      </div>
      <div id="name-check" aria-live="polite">
        ${check && check.problem && html`<p class="field-note bad">${check.problem}</p>`}
        ${check && check.available && html`<p class="field-note good">Free. It will be at <code>${check.host}</code></p>`}
        ${check && !check.available && !check.problem && html`<p class="field-note bad">
          ${`You already have a project called ${name.trim().toLowerCase()}. `}
          <button type="button" class="link" onClick=${() => use(check.suggestion)}>Use ${check.suggestion}</button>
          ${' (it would be at '}<code>${check.host}</code>)</p>`}
        <${ErrorNote} error=${checkError} />
      </div>
      <${ErrorNote} error=${error} onUse=${use} />
      <label for="project-team">Owner</label>
      <select id="project-team" value=${team} onChange=${(e) => setTeam(e.currentTarget.value)}>
        <option value="">You (${me.slug})</option>
        ${me.teams.map((t) => html`<option value=${t.slug}>Team ${t.slug}</option>`)}
      </select>
      <p class="muted small">The project's name ends in its owner's slug. Your plan (${me.plan}) counts ${me.projects_used}
        ${me.project_limit === null ? '' : ` of ${me.project_limit}`} projects.</p>
      <button type="submit" class="primary" disabled=${busy || !name.trim()}>${busy ? 'Creating…' : 'Create project'}</button>
    </form>
  </section>`;
}
