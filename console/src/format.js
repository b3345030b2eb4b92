// Small pure helpers for what the pages show: sizes, ages, short ids, the projects filter.
// node --test runs them.

export function formatBytes(n) {
  if (n === null || n === undefined) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

// "just now", "5 min ago", "3 h ago", "2 days ago"; `now` in Unix seconds.
export function formatAge(unixSeconds, now = Date.now() / 1000) {
  if (!unixSeconds) return '';
  const s = Math.max(0, Math.round(now - unixSeconds));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  const days = Math.floor(s / 86400);
  return days === 1 ? '1 day ago' : `${days} days ago`;
}

export function formatTime(unixSeconds) {
  if (!unixSeconds) return '';
  return new Date(unixSeconds * 1000).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

export function shortId(id) {
  return id ? String(id).slice(0, 8) : '';
}

// Projects whose every word of the query appears in one of: name, label, region, state,
// runtime, team, live or "no release".
export function filterProjects(projects, query) {
  const words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return projects;
  return projects.filter((p) => {
    const hay = [p.name, p.label, p.region, p.state, p.runtime, p.team, p.live ? 'live' : 'no release']
      .filter(Boolean)
      .join(' ')
      .toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

// The sign-in code of a link's fragment (#code=...), or null.
export function codeFromFragment(hash) {
  const m = /^#?code=([A-Za-z0-9]+)$/.exec(hash || '');
  return m ? m[1] : null;
}

// The console's own routes, in the fragment: #/projects, #/projects/<name>/<tab>[/<sub>],
// #/new, #/templates[/<slug>], #/deploys, #/account.
export function parseRoute(hash) {
  const path = (hash || '').replace(/^#\/?/, '');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'projects' && parts[1]) {
    const route = { page: 'project', name: parts[1], tab: parts[2] || 'overview' };
    // A tab's own place: the Database tab's table (#/projects/<name>/database/<table>).
    if (parts[3]) route.sub = parts.slice(3).join('/');
    return route;
  }
  if (parts[0] === 'templates') return { page: 'templates', slug: parts[1] || null };
  if (parts[0] === 'new') return { page: 'new' };
  if (parts[0] === 'account') return { page: 'account' };
  if (parts[0] === 'deploys') return { page: 'deploys' };
  return { page: 'projects' };
}
