// A project's log as the Logs page shows it, pure: which kind a line is (a request a schedule
// made counts as a schedule line: its message is the schedule's id), the kind and status
// filters, followed pages merged in order, and the text for copy and download.
// node --test runs it (console/test/logs.test.mjs).

export const KINDS = ['request', 'schedule', 'process', 'platform'];
export const STATUS_FILTERS = [
  ['all', 'any status'],
  ['ok', '2xx and 3xx'],
  ['4xx', '4xx'],
  ['5xx', '5xx'],
  ['errors', '4xx and 5xx'],
];

// The kind a line is shown as: `request` lines made by a schedule are `schedule`.
export function kindOf(entry) {
  if (entry.kind === 'request' && /^[0-9a-f]{48}$/.test(entry.message || '')) return 'schedule';
  return entry.kind;
}

function statusMatches(status, filter) {
  if (filter === 'all') return true;
  if (status === null || status === undefined) return false;
  if (filter === 'ok') return status >= 200 && status < 400;
  if (filter === '4xx') return status >= 400 && status < 500;
  if (filter === '5xx') return status >= 500 && status < 600;
  if (filter === 'errors') return status >= 400;
  return true;
}

// The lines of the chosen kinds (a Set) and status; a status filter other than `all` keeps only
// lines with a status (requests).
export function filterLogs(entries, { kinds, status = 'all' }) {
  return entries.filter((e) => kinds.has(kindOf(e)) && statusMatches(e.status, status));
}

// The first answer (newest first) turned oldest first, or a followed page (already oldest
// first) appended; without repeats by cursor, and at most `keep` lines, the newest.
export function mergeLogs(current, page, { first = false, keep = 2000 } = {}) {
  const incoming = first ? [...page].reverse() : page;
  const seen = new Set(current.map((e) => e.cursor));
  const merged = current.concat(incoming.filter((e) => !seen.has(e.cursor)));
  return merged.length > keep ? merged.slice(merged.length - keep) : merged;
}

// "2026-02-25 06:13:20" (UTC): log lines come seconds apart.
export function logTime(unixSeconds) {
  return new Date(unixSeconds * 1000).toISOString().replace('T', ' ').slice(0, 19);
}

// One line of text: time, kind, then what the kind has.
export function logLine(entry) {
  const parts = [logTime(entry.at), kindOf(entry)];
  if (entry.method) parts.push(entry.method);
  if (entry.path) parts.push(entry.path);
  if (entry.status !== null && entry.status !== undefined) parts.push(String(entry.status));
  if (entry.ms !== null && entry.ms !== undefined) parts.push(`${entry.ms}ms`);
  if (entry.message) parts.push(entry.message);
  return parts.join(' ');
}

export function logText(entries) {
  return entries.map(logLine).join('\n') + (entries.length ? '\n' : '');
}
