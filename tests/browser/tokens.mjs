// Make and revoke an API token: shown once, listed without its value, revoked after a second
// click; the revoked token is refused by the API at once. Then sign out.
import { request } from 'playwright-core';
import { runFlow, signIn, expect } from './lib.mjs';

// GET /me as a script would send it: the token alone, no cookie.
async function meWith(base, token) {
  const api = await request.newContext();
  const answer = await api.get(`${base}/me`, { headers: { Authorization: `Bearer ${token}` } });
  await api.dispose();
  return answer.status();
}

runFlow('tokens', async ({ page, base, link, shot }) => {
  await signIn(page, link);
  await page.getByRole('link', { name: 'Account' }).click();
  await page.getByRole('heading', { name: 'API tokens' }).waitFor();

  await page.getByLabel('Name', { exact: true }).fill('laptop');
  await page.getByLabel('Expires in days').fill('30');
  await page.getByRole('button', { name: 'Make a token' }).click();
  await page.getByText('Copy it now: it is shown this once and never again.').waitFor();
  const token = (await page.locator('#new-token').innerText()).trim();
  expect(/^bth_[A-Za-z0-9]{40}$/.test(token), `not a token: ${token}`);
  await page.getByRole('cell', { name: 'laptop', exact: true }).waitFor();
  await shot('tokens-made');

  // The token works against the API (outside the page, as a script would use it).
  const works = await meWith(base, token);
  expect(works === 200, `GET /me with the new token answered ${works}`);

  // A second token of the same name: the API's 409, in its words, next to the form.
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByLabel('Name', { exact: true }).fill('laptop');
  await page.getByRole('button', { name: 'Make a token' }).click();
  await page.getByText('A token named laptop already exists.').waitFor();
  expect(!(await page.locator('body').innerText()).includes(token), 'the token is shown again');

  const row = page.locator('tr', { hasText: 'laptop' });
  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByRole('button', { name: 'Revoke laptop now' }).click();
  await page.getByRole('cell', { name: 'laptop', exact: true }).waitFor({ state: 'detached' });
  await shot('tokens');
  const after = await meWith(base, token);
  expect(after === 401, `GET /me with the revoked token answered ${after}`);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Berth' }).waitFor();
  await page.reload();
  await page.getByRole('heading', { name: 'Sign in to Berth' }).waitFor();
});
