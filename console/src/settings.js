// A project's settings form, pure: the start-command rule of PATCH /projects/{name} in the API's
// words (plugins/runtime/src/start_commands.hpp), the cache ttl's range, and the body to send
// (only what changed). node --test runs it (console/test/settings.test.mjs).

// Why a start command is refused, or null (empty is fine: it clears the command).
export function commandProblem(cmd) {
  if (/[\n\r\0]/.test(cmd)) return 'the start command must be one line';
  const shell = /[|&;<>`()'"*]/.exec(cmd);
  if (shell) return `the start command is run directly, not through a shell, so it cannot contain ${shell[0]}`;
  const first = cmd.replace(/^[ \t]+/, '').split(/[ \t]/)[0];
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) {
    return 'the start command is run directly, so it cannot begin with an assignment like NAME=value; set a secret instead';
  }
  return null;
}

export const MAX_TTL = 31536000;

// Why a cache ttl (as typed) is refused, or null.
export function ttlProblem(text) {
  const t = String(text).trim();
  if (!/^[0-9]+$/.test(t) || Number(t) > MAX_TTL) return `cache_ttl must be between 0 and ${MAX_TTL}`;
  return null;
}

// The PATCH body: the fields whose value differs from the project's, or null when none does.
export function settingsChanges(project, form) {
  const out = {};
  if (form.region !== project.region) out.region = form.region;
  if (form.cmd !== project.cmd) out.cmd = form.cmd;
  if (form.ignore_dockerfile !== project.ignore_dockerfile) out.ignore_dockerfile = form.ignore_dockerfile;
  if (form.cache_enabled !== project.cache_enabled) out.cache_enabled = form.cache_enabled;
  const ttl = Number(String(form.cache_ttl).trim());
  if (ttl !== project.cache_ttl) out.cache_ttl = ttl;
  return Object.keys(out).length ? out : null;
}
