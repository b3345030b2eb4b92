// Open a table to the data API and read it with fetch from the project's own address: the
// publishable key with copy and rotate, the table-by-operation grid, a function's switch, and
// the snippet the page offers, run as it is on a page of the project's host.
import { runFlow, signIn, makeProject, openTab, runSql, expect } from './lib.mjs';

// Runs a snippet (plus `tail`) on a page of the project's own address, as a web page of the
// app would, and returns what it returns.
async function runOnProjectHost(browser, url, code, tail) {
  // The project has no release: its host answers an error page, and a page's script is all
  // this needs. The snippet's code is evaluated as the app's own script would be.
  const context = await browser.newContext({ bypassCSP: true });
  const site = await context.newPage();
  await site.goto(url).catch(() => {});
  const result = await site.evaluate(async ({ code, tail }) => {
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    try {
      return { ok: true, value: await new AsyncFunction(`${code}\n${tail}`)() };
    } catch (e) {
      return { ok: false, error: String(e && e.message ? e.message : e) };
    }
  }, { code, tail });
  const origin = new URL(site.url()).origin;
  await context.close();
  return { ...result, origin };
}

runFlow('data_api', async ({ page, link, shot }) => {
  await signIn(page, link);
  const name = await makeProject(page, 'open');
  const url = await page.locator('dl.facts a').first().getAttribute('href');
  await openTab(page, 'Database');
  await runSql(page, 'create table notes (id serial primary key, body text not null); create table secrets_kept (x int)', 'sql');
  await page.getByText('Done. Tables now: notes, secrets_kept.').waitFor();
  await runSql(page, "insert into notes (body) values ('from the console'); insert into notes (body) values ('second')", 'batch');
  await page.getByText('Statement 2').waitFor();
  await runSql(page, 'create function add_note(body text) returns int language sql as $$ insert into notes (body) values (body) returning id $$', 'sql');
  await page.getByText('Done. Tables now:').waitFor();

  await openTab(page, 'Data API');
  const key = (await page.getByLabel('Publishable key', { exact: true }).innerText()).trim();
  expect(/^bpk_[A-Za-z0-9]{32}$/.test(key), `not a publishable key: ${key}`);
  await page.getByText('Open a table above to get its snippet.').waitFor();
  const grants = page.getByRole('table', { name: 'What the publishable key may do' });
  await grants.getByLabel('read secrets_kept').waitFor();
  expect(!(await grants.getByLabel('read notes').isChecked()), 'notes starts open');

  // Closed: the project's host refuses the key, in its words.
  const closed = await runOnProjectHost(page.context().browser(), url,
    `const a = await fetch('${url}/_data/notes', { headers: { apikey: '${key}' } });`, 'return [a.status, (await a.json()).error];');
  expect(closed.ok && closed.value[0] === 403 && /may not read notes/.test(closed.value[1]), `closed read: ${JSON.stringify(closed)}`);

  await grants.getByLabel('read notes').check();
  await grants.getByLabel('create notes').check();
  await page.getByRole('heading', { name: 'notes', exact: true }).waitFor();
  const snippet = await page.getByLabel('fetch snippet of notes').innerText();
  expect(snippet.includes(`${url}/_data/notes?select=*&limit=20`), `the snippet reads ${snippet}`);
  expect(snippet.includes(key), 'the snippet lacks the key');

  // The function's switch.
  const fn = page.getByLabel('add_note');
  await fn.check();
  await page.reload();
  await page.getByLabel('add_note').waitFor();
  expect(await page.getByLabel('add_note').isChecked(), 'the function is not enabled after a reload');
  await shot('data_api');

  // The snippet, run as it is on the project's own address: it reads the rows, then inserts.
  const read = await runOnProjectHost(page.context().browser(), url, snippet, 'return rows;');
  expect(read.ok, `the snippet failed: ${read.error}`);
  expect(read.origin === new URL(url).origin, `ran at ${read.origin}, not the project's address`);
  const bodies = read.value.map((r) => r.body);
  expect(bodies.includes('from the console') && bodies.includes('second'), `the snippet read ${JSON.stringify(read.value)}`);

  // Rotate: the old key stops at once.
  await page.getByRole('button', { name: 'Rotate' }).click();
  await page.getByText('A new key stops this one at once').waitFor();
  await page.getByRole('button', { name: 'Make a new key now' }).click();
  await page.getByText('A new key is in place; the old one no longer works.').waitFor();
  const fresh = (await page.getByLabel('Publishable key', { exact: true }).innerText()).trim();
  expect(fresh !== key && /^bpk_/.test(fresh), 'the key did not change');
  const old = await runOnProjectHost(page.context().browser(), url,
    `const a = await fetch('${url}/_data/notes', { headers: { apikey: '${key}' } });`, 'return a.status;');
  expect(old.ok && old.value === 401, `the old key answered ${JSON.stringify(old)}`);
  await shot('data_api-rotated');
  expect(name.startsWith('open-'), name);
});
