// Sign in with a one-time link: the code leaves the address at once, nothing is kept in the
// page's storage, the session cookie is out of the page's reach, and the same link a second time
// is refused in the API's own words.
import { runFlow, signIn, expect } from './lib.mjs';

runFlow('sign_in', async ({ page, link, shot, newPage }) => {
  await signIn(page, link);
  expect(!page.url().includes('code='), `the code is still in the address: ${page.url()}`);
  const kept = await page.evaluate(() => ({
    local: localStorage.length,
    session: sessionStorage.length,
    cookie: document.cookie,
  }));
  expect(kept.local === 0 && kept.session === 0, `the page stored something: ${JSON.stringify(kept)}`);
  expect(!kept.cookie.includes('berth_session'), 'the session cookie is readable by the page');
  await page.getByText('No projects yet.').waitFor();
  await shot('sign_in');

  // Reloading keeps the session (the cookie), and the account page shows who is signed in.
  await page.reload();
  await page.getByRole('link', { name: 'Account' }).click();
  await page.getByRole('heading', { name: 'Account' }).waitFor();

  // The link works once: a second browser opening it sees why it cannot sign in.
  const other = await newPage();
  await other.goto(link);
  await other.getByText('That sign-in link is not valid, was used already, or expired.').waitFor();
  await other.getByRole('heading', { name: 'Your sign-in link' }).waitFor();
  await shot('sign_in-used_link', other);
});
