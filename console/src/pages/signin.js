// Sign-in: the one-time link's code (taken from the fragment by app.js), or a pasted API token.
// Either is exchanged for the session cookie by POST /session; the token is sent that once and
// kept nowhere (not in storage, not in state after the request).
import { html, useState, useEffect } from '../ui.js';
import { ErrorNote } from '../parts.js';

export function SignIn({ api, code, onSignedIn }) {
  const [linkState, setLinkState] = useState(code ? 'working' : 'none');
  const [linkError, setLinkError] = useState(null);
  const [tokenError, setTokenError] = useState(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!code) return;
    api.signInWithCode(code).then(
      () => onSignedIn(),
      (err) => {
        setLinkState('failed');
        setLinkError(err);
      },
    );
  }, []);

  const submitToken = async (e) => {
    e.preventDefault();
    const field = e.currentTarget.elements.token;
    const token = field.value.trim();
    setTokenError(null);
    if (!token) return;
    setBusy(true);
    try {
      await api.signInWithToken(token);
      field.value = '';
      onSignedIn();
    } catch (err) {
      setTokenError(err);
      setBusy(false);
    }
  };

  return html`<main class="signin">
    <div class="card">
      <h1>Sign in to Berth</h1>
      ${linkState === 'working' && html`<p class="note" role="status">Signing you in with your link…</p>`}
      ${linkState === 'failed' && html`<section class="link-result">
        <h2>Your sign-in link</h2>
        <${ErrorNote} error=${linkError} />
        <p class="muted">Ask for a new link (<code>berthd account login-link --email you@example.com</code>), or sign in with a token below.</p>
      </section>`}
      ${linkState === 'none' && html`<p>Open the sign-in link you were given
        (<code>berthd account login-link --email you@example.com</code> prints one), or paste an API token.</p>`}
      <form onSubmit=${submitToken} autocomplete="off">
        <label for="token">API token</label>
        <input id="token" name="token" type="password" placeholder="bth_…" spellcheck=${false} autocomplete="off" />
        <${ErrorNote} error=${tokenError} />
        <button type="submit" class="primary" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in with token'}</button>
        <p class="muted small">The token is exchanged for a session cookie once; this page never keeps it.</p>
      </form>
    </div>
  </main>`;
}
