// Pieces every page uses: an API error shown where it happened, a button that waits.
import { html, useState, useEffect, useRef } from './ui.js';
import { formatApiError } from './errors.js';

// The API's words, next to what caused them. `onUse` offers the free name of a 409.
export function ErrorNote({ error, onUse }) {
  if (!error) return null;
  return html`<div class="error" role="alert">
    <span>${formatApiError(error)}</span>
    ${onUse && error.suggestion && ' '}
    ${onUse && error.suggestion &&
    html`<button type="button" class="link" onClick=${() => onUse(error.suggestion)}>Use ${error.suggestion}</button>`}
  </div>`;
}

export function Note({ children }) {
  return html`<p class="note" role="status">${children}</p>`;
}

export function Loading({ what }) {
  return html`<p class="muted">Loading ${what}…</p>`;
}

// Runs an async action, showing it busy meanwhile; errors go to onError.
export function ActionButton({ action, onError, busyText, children, kind = '', ...rest }) {
  const [busy, setBusy] = useState(false);
  const mounted = useRef(true);
  useEffect(() => () => { mounted.current = false; }, []);
  const run = async () => {
    setBusy(true);
    onError && onError(null);
    try {
      await action();
    } catch (err) {
      if (onError) onError(err);
      else throw err;
    } finally {
      if (mounted.current) setBusy(false);
    }
  };
  return html`<button type="button" class=${kind} disabled=${busy} ...${rest} onClick=${run}>
    ${busy && busyText ? busyText : children}</button>`;
}

// Copies `text` to the clipboard and says so for a moment; a refusal (no permission, no
// secure context) is shown next to it.
export function CopyButton({ text, label = 'Copy', what = '' }) {
  const [state, setState] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('Copied');
      setTimeout(() => setState(''), 1500);
    } catch (err) {
      setState(`Could not copy: ${err && err.message ? err.message : err}`);
    }
  };
  return html`<button type="button" class="copy" aria-label=${what ? `${label} ${what}` : label} onClick=${copy}>${state || label}</button>`;
}
