// The console's entry: reads a sign-in link's code from the fragment (and drops it from the
// address at once, so it is in no history entry), asks GET /me whether the session cookie is
// good, and shows the page the fragment names. A 401 from any request shows the sign-in page.
import { html, render, useState, useEffect } from './ui.js';
import { createApi } from './api.js';
import { codeFromFragment, parseRoute } from './format.js';
import { ErrorNote } from './parts.js';
import { SignIn } from './pages/signin.js';
import { Projects } from './pages/projects.js';
import { NewProject } from './pages/new_project.js';
import { Project } from './pages/project.js';
import { Account } from './pages/account.js';
import { RecentDeploys } from './pages/recent_deploys.js';
import { Templates } from './pages/templates.js';

const linkCode = codeFromFragment(location.hash);
if (linkCode) history.replaceState(null, '', `${location.pathname}#/projects`);

let signedOut = () => {};
const api = createApi({
  fetch: async (url, init) => {
    const answer = await fetch(url, init);
    if (answer.status === 401 && url !== '/session') signedOut();
    return answer;
  },
});

function useRoute() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return parseRoute(hash);
}

const navigate = (hash) => {
  location.hash = hash;
};

function App() {
  const [me, setMe] = useState(undefined); // undefined: asking; null: signed out
  const [bootError, setBootError] = useState(null);
  const route = useRoute();
  signedOut = () => setMe(null);

  const loadMe = () =>
    api.me().then(setMe, (err) => {
      if (err.status === 401) setMe(null);
      else setBootError(err);
    });

  useEffect(() => {
    if (!linkCode) loadMe();
    else setMe(null);
  }, []);
  // The pages that show the account's counts read it fresh.
  useEffect(() => {
    if (me && (route.page === 'new' || route.page === 'account' || route.page === 'templates')) api.me().then(setMe, () => {});
  }, [route.page]);

  if (bootError) return html`<main class="signin"><div class="card"><h1>Berth</h1><${ErrorNote} error=${bootError} /></div></main>`;
  if (me === undefined) return html`<p class="boot">Loading the console…</p>`;
  if (me === null) {
    return html`<${SignIn} api=${api} code=${linkCode} onSignedIn=${() => {
      if (!location.hash || location.hash === '#') navigate('#/projects');
      loadMe();
    }} />`;
  }
  return html`<div class="shell">
    <header>
      <a class="brand" href="#/projects">Berth</a>
      <nav aria-label="Main">
        <a href="#/projects" class=${route.page === 'projects' || route.page === 'project' ? 'active' : ''}>Projects</a>
        <a href="#/deploys" class=${route.page === 'deploys' ? 'active' : ''}>Deploys</a>
        <a href="#/templates" class=${route.page === 'templates' ? 'active' : ''}>App templates</a>
        <a href="#/account" class=${route.page === 'account' ? 'active' : ''}>Account</a>
      </nav>
      <span class="who">${me.email}</span>
    </header>
    <main>
      ${route.page === 'projects' && html`<${Projects} api=${api} />`}
      ${route.page === 'new' && html`<${NewProject} api=${api} me=${me} navigate=${navigate} />`}
      ${route.page === 'project' && html`<${Project} api=${api} name=${route.name} tab=${route.tab} sub=${route.sub} />`}
      ${route.page === 'deploys' && html`<${RecentDeploys} api=${api} />`}
      ${route.page === 'templates' && html`<${Templates} api=${api} me=${me} slug=${route.slug} navigate=${navigate} />`}
      ${route.page === 'account' && html`<${Account} api=${api} me=${me} onSignOut=${() => setMe(null)} onChanged=${() => api.me().then(setMe, () => {})} />`}
    </main>
  </div>`;
}

render(html`<${App} />`, document.getElementById('app'));
