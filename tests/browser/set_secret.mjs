// Set secrets: one through the form, then a pasted .env block checked line by line (a bad line
// named with the API's rule); the list shows names, scope and age, never a value.
import { runFlow, signIn, makeProject, openTab, expect } from './lib.mjs';

runFlow('set_secret', async ({ page, link, shot }) => {
  await signIn(page, link);
  await makeProject(page, 'vault');
  await openTab(page, 'Secrets');
  await page.getByText('Setting or removing a secret restarts the app').waitFor();
  await page.getByText('No secrets yet.').waitFor();

  const value = `s3cret-${Date.now()}`;
  await page.getByLabel('Name', { exact: true }).fill('stripe_key');
  await page.getByText('a secret name is capital letters').first().waitFor();
  await page.getByLabel('Name', { exact: true }).fill('STRIPE_KEY');
  await page.getByLabel('Value', { exact: true }).fill(value);
  await page.getByRole('button', { name: 'Set secret', exact: true }).click();
  await page.getByText('STRIPE_KEY is set; the app restarts with it.').waitFor();
  await page.locator('table.list code', { hasText: 'STRIPE_KEY' }).waitFor();

  await page.getByLabel('NAME=value lines').fill(
    `# from my laptop\nAPI_URL=https://api.example.com\nexport MODE="production" # comment\nPGHOST=nope\n`);
  await page.getByText('2 secrets to set: API_URL, MODE').waitFor();
  await page.getByText('line 4 (PGHOST): DATABASE_URL and names starting with PG are set by the platform').waitFor();
  await shot('set_secret-paste');
  await page.getByRole('button', { name: 'Set 2 secrets' }).click();
  await page.locator('table.list code', { hasText: 'MODE' }).waitFor();
  await page.locator('table.list code', { hasText: 'API_URL' }).waitFor();
  const rows = await page.locator('table.list tbody tr').count();
  expect(rows === 3, `3 secrets listed, not ${rows}`);
  const text = await page.locator('body').innerText();
  expect(!text.includes(value) && !text.includes('api.example.com'), 'a secret value is on the page');
  await shot('set_secret');

  // Removing one.
  await page.locator('tr', { hasText: 'MODE' }).getByRole('button', { name: 'Remove' }).click();
  await page.locator('table.list code', { hasText: 'MODE' }).waitFor({ state: 'detached' });
});
