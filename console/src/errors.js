// What the console says when the API refuses something. The API's own words come first, always:
// they name the rule that was broken. A few answers carry more than their text (the free name
// of a 409, the wait of a 429), and a few statuses need a word on what to do next.
// Pure: no DOM, no fetch; node --test runs it (console/test/errors.test.mjs).

// A refused or failed API request. `status` is 0 when berthd could not be reached at all.
export class ApiError extends Error {
  constructor({ status, error, suggestion = null, retryAfter = null, method = '', path = '' }) {
    super(error);
    this.name = 'ApiError';
    this.status = status;
    this.error = error;
    this.suggestion = suggestion;
    this.retryAfter = retryAfter;
    this.method = method;
    this.path = path;
  }
}

// Builds an ApiError from an answer: the JSON {"error": ...} berthd and the edge send, or the
// plain text of a 415/422, or the bare status when the body says nothing.
export function errorFromAnswer(status, bodyText, retryAfterHeader, method = '', path = '') {
  let error = '';
  let suggestion = null;
  const text = (bodyText || '').trim();
  if (text.startsWith('{')) {
    try {
      const body = JSON.parse(text);
      if (typeof body.error === 'string') error = body.error;
      if (typeof body.suggestion === 'string') suggestion = body.suggestion;
    } catch {
      error = '';
    }
  }
  if (!error && text && !text.startsWith('<') && !text.startsWith('{')) error = text;
  if (!error) error = `the server answered ${status} without saying why`;
  return new ApiError({
    status,
    error,
    suggestion,
    retryAfter: parseRetryAfter(retryAfterHeader),
    method,
    path,
  });
}

// Retry-After in whole seconds (berthd sends seconds, never a date); null when absent or odd.
export function parseRetryAfter(value) {
  if (value === null || value === undefined || value === '') return null;
  const text = String(value).trim();
  if (!/^[0-9]+$/.test(text)) return null;
  return Number(text);
}

// "45 seconds", "1 minute", "3 minutes"
export function formatWait(seconds) {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

// One sentence (or two) for a person, from an ApiError or any other thrown value.
export function formatApiError(err) {
  if (!(err instanceof ApiError)) {
    return err && err.message ? err.message : String(err);
  }
  const text = capitalise(err.error);
  switch (err.status) {
    case 0:
      return `Could not reach berthd: ${err.error}. Check your connection and try again.`;
    case 409:
      return err.suggestion
        ? `${withStop(text)} "${err.suggestion}" is free.`
        : withStop(text);
    case 429:
      return err.retryAfter !== null
        ? `${withStop(text)} Try again in ${formatWait(err.retryAfter)}.`
        : withStop(text);
    case 403:
      return `Refused: ${withStop(err.error)}`;
    case 501:
      if (/secrets are not configured/.test(err.error)) {
        return `${text}: this server has no secrets key. Its operator sets ` +
          'projects.secrets_key_file (scripts/start.sh makes one) and restarts berthd.';
      }
      return withStop(text);
    default:
      return withStop(text);
  }
}

// Whether the error means the session is gone and the person must sign in again.
export function isSignedOut(err) {
  return err instanceof ApiError && err.status === 401;
}

function withStop(text) {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}
