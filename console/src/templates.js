// App templates: each installer's form and its rules, checked as typed with the installer's own
// refusals (the API says them again if anything gets past), and how an install is followed.
// The catalogue (GET /app-templates) names the templates; the fields are the installers' own
// (plugins/templates/<app>/README.md): the content-management one (wordpress) takes an
// administrator's e-mail and password, a title and a user name; the workflow one (n8n) takes
// no body. An installer this console does not know gets a JSON body box.
// Pure: node --test runs it (console/test/templates.test.mjs).

const bytes = (text) => new TextEncoder().encode(text).length;
const chars = (text) => [...text].length;

// WordPress's is_email(), as the installer checks it.
export function wordpressEmail(email) {
  if (email.length < 6 || email.length > 100) return false;
  const at = email.indexOf('@');
  if (at <= 0) return false;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (!/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false;
  if (domain.includes('..') || domain.startsWith('.') || domain.endsWith('.')) return false;
  const labels = domain.split('.');
  if (labels.length < 2) return false;
  return labels.every((l) => /^[A-Za-z0-9-]+$/.test(l) && !l.startsWith('-') && !l.endsWith('-'));
}

// Each field: {name, label, type, required, placeholder, help, check(value) → problem|null}.
export const FORMS = {
  wordpress: [
    {
      name: 'email', label: 'Administrator e-mail', type: 'email', required: true, placeholder: 'ann@example.com',
      check: (v) => (wordpressEmail(v) ? null : 'email must be an e-mail address such as ann@example.com (6 to 100 characters)'),
    },
    {
      name: 'password', label: 'Administrator password', type: 'password', required: true,
      help: 'At least 8 characters. Kept by WordPress only; Berth never logs it.',
      check: (v) => {
        if (chars(v) < 8) return 'password must be at least 8 characters';
        if (bytes(v) > 4096) return 'password must be at most 4096 bytes';
        if (/^\s|\s$/.test(v)) return 'password must not start or end with white space (WordPress would cut it off)';
        return null;
      },
    },
    {
      name: 'title', label: 'Site title', type: 'text', required: false, placeholder: 'My WordPress Site',
      check: (v) => (chars(v) >= 1 && chars(v) <= 200 && !/[\r\n]/.test(v) ? null : 'title must be 1 to 200 characters on one line'),
    },
    {
      name: 'user', label: 'Administrator user name', type: 'text', required: false, placeholder: 'admin',
      help: 'admin when left empty.',
      check: (v) => (/^[A-Za-z0-9_.@-]{1,60}$/.test(v) ? null : "user must be 1 to 60 characters of letters, digits, '_', '-', '.' and '@'"),
    },
  ],
  n8n: [],
};

// The form of a template: its fields, [] for one that takes no body, null when this console
// does not know the installer (a JSON body box instead).
export function formOf(slug) {
  return Object.prototype.hasOwnProperty.call(FORMS, slug) ? FORMS[slug] : null;
}

// The problems of the values typed, by field name ({} when none). A required field left empty
// says so in the core's words; an optional one left empty is left out of the body.
export function formProblems(fields, values) {
  const problems = {};
  for (const f of fields) {
    const v = values[f.name] ?? '';
    if (v === '') {
      if (f.required) problems[f.name] = `missing field: ${f.name}`;
      continue;
    }
    const p = f.check ? f.check(v) : null;
    if (p) problems[f.name] = p;
  }
  return problems;
}

// The install's body: the fields given (empty optional ones left out); null for no body.
export function installBody(fields, values) {
  if (!fields.length) return null;
  const body = {};
  for (const f of fields) {
    const v = values[f.name] ?? '';
    if (v !== '') body[f.name] = v;
  }
  return body;
}

// A body typed as JSON for an installer the console does not know: {body} or {problem}.
export function jsonBody(text) {
  const t = String(text || '').trim();
  if (!t) return { body: null };
  try {
    const body = JSON.parse(t);
    if (!body || typeof body !== 'object' || Array.isArray(body)) return { problem: 'the body must be a JSON object' };
    return { body };
  } catch (e) {
    return { problem: `the body is not valid JSON: ${e.message}` };
  }
}

// What an answer of the install route says: done (200, or a followed install that has its
// answer), still installing (202, or GET while it runs), or failed.
export function installState(answer) {
  if (!answer) return { state: 'installing', progress: '' };
  if (answer.status === 'failed') return { state: 'failed', error: answer.error || 'the install failed' };
  if (answer.status === 'installing') return { state: 'installing', progress: answer.progress || '' };
  const done = answer.status === 'installed' ? answer.answer : answer;
  if (done && done.template) {
    return {
      state: 'installed',
      project: done.project,
      schedules: Array.isArray(done.schedules) ? done.schedules : [],
      secrets: Array.isArray(done.secrets) ? done.secrets : [],
    };
  }
  return { state: 'installing', progress: answer.progress || '' };
}

// A schedule an install made, in a line: "nightly-backup: 0 3 * * * GET /backup".
export function scheduleLine(s) {
  if (!s || typeof s !== 'object') return String(s);
  const name = s.name || s.id || 'schedule';
  const parts = [s.spec || s.cron, s.method, s.path].filter(Boolean).join(' ');
  return parts ? `${name}: ${parts}` : name;
}
