// Make a table, insert and edit rows, run a query: the Database tab's SQL editor routes schema
// changes to /sql, one statement to /query and several to /batch (saying so before it runs);
// the table's columns, key and link; rows inserted with the form, a cell edited, a big value
// opened in the side panel, a filter and an order in the rows API's grammar, selected rows
// deleted; a table without a primary key read-only; the history kept across a reload; an
// import with its outcome and an export downloaded in each format.
import { runFlow, signIn, makeProject, openTab, runSql, expect } from './lib.mjs';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

runFlow('database', async ({ page, link, shot }) => {
  await signIn(page, link);
  const name = await makeProject(page, 'data');
  await openTab(page, 'Database');
  await page.getByText('None yet: make one in the SQL editor.').waitFor();

  // Schema changes only: /sql, in one transaction, and the tables are read again.
  await page.getByLabel(/^SQL/).fill(
    'create table authors (id serial primary key, name text not null unique);\n' +
    'create table notes (id serial primary key, body text not null, author_id int references authors (id) on delete set null,\n' +
    '  tags text[], made timestamptz not null default now());\n' +
    'create index notes_made on notes (made);\n' +
    'create table plain (x int, y text);');
  await page.getByText('4 schema changes: /sql runs them together in one transaction').waitFor();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByText('Done. Tables now: authors, notes, plain.').waitFor();
  const side = page.getByRole('navigation', { name: 'Database' });
  await side.getByRole('link', { name: 'notes' }).waitFor();

  // Several statements of other kinds: /batch, said before it runs.
  await page.getByLabel(/^SQL/).fill("insert into authors (name) values ('Ann'); insert into authors (name) values ('Bo')");
  await page.getByText('2 statements: /batch runs them in order in one transaction').waitFor();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByText('Statement 2').waitFor();
  // What /batch would refuse is said first, in the API's words.
  await page.getByLabel(/^SQL/).fill('begin; select 1; commit');
  await page.getByText('statement 1: BEGIN, COMMIT and ROLLBACK cannot be used here').waitFor();
  // And what the database refuses comes back in its words.
  await runSql(page, 'select * from nowhere', 'query');
  await page.getByRole('alert').getByText('relation "nowhere" does not exist').waitFor();
  await shot('database-sql');

  // The table: its columns, key, link and index.
  await side.getByRole('link', { name: 'notes' }).click();
  await page.getByRole('heading', { name: 'Table notes' }).waitFor();
  const cols = page.getByRole('table', { name: 'Columns of notes' });
  await cols.getByText('primary key').waitFor();
  await cols.getByRole('link', { name: 'authors' }).waitFor();
  await page.getByText('(author_id) → authors (id) on delete set null').waitFor();
  await page.getByText('notes_made').waitFor();
  await page.getByText('No rows').waitFor();

  // Insert two rows with the form (empty fields take their defaults).
  for (const [body, author, tags] of [['first note', '1', '["a", "b"]'], ['second note', '2', '']]) {
    await page.getByRole('button', { name: 'Insert a row' }).click();
    const form = page.getByRole('form', { name: 'Insert a row into notes' });
    await form.getByLabel('body').fill(body);
    await form.getByLabel('author_id').fill(author);
    if (tags) await form.getByLabel('tags').fill(tags);
    await form.getByRole('button', { name: 'Insert', exact: true }).click();
    await page.getByText('The row is inserted.').waitFor();
  }
  const grid = page.getByRole('table', { name: 'Rows of notes' });
  await grid.getByText('second note').waitFor();
  await page.getByText('Rows 1–2 of 2').waitFor();
  await grid.getByText('["a","b"]').waitFor();

  // The database's refusal of a row, in its words, next to the form.
  await page.getByRole('button', { name: 'Insert a row' }).click();
  const form = page.getByRole('form', { name: 'Insert a row into notes' });
  await form.getByLabel('body').fill('orphan');
  await form.getByLabel('author_id').fill('99');
  await form.getByRole('button', { name: 'Insert', exact: true }).click();
  await form.getByText('violates foreign key constraint "notes_author_id_fkey"').waitFor();
  await page.getByRole('button', { name: 'Insert a row' }).click();

  // Edit a cell.
  await grid.getByRole('button', { name: 'Edit body: first note' }).click();
  await page.getByLabel('New value of body').fill('first note, edited');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('body is saved.').waitFor();
  await grid.getByText('first note, edited').waitFor();

  // The linked author embedded through the declared key.
  await page.getByLabel('author_id → authors.id').check();
  await grid.getByText('author_id__authors').waitFor();
  await grid.getByText('{"id":2,"name":"Bo"}').waitFor();
  await page.getByLabel('author_id → authors.id').uncheck();

  // A big value: cut in the grid, whole in the side panel.
  await runSql(page, "insert into notes (body) select repeat('long text ', 20000)", 'query');
  await page.getByText('1 row changed').waitFor();
  await side.getByRole('link', { name: 'notes' }).click();
  await grid.getByRole('button', { name: 'Open the whole value of body' }).click();
  const panel = page.getByRole('dialog', { name: 'The whole value of body' });
  await panel.getByText('200,000 characters, text, in the row where id = ').waitFor();
  await shot('database-panel');
  await panel.getByRole('button', { name: 'Close' }).click();

  // A filter and an order, in the rows API's grammar (shown under the grid).
  await page.getByRole('button', { name: 'Add a filter' }).click();
  await page.getByLabel('Column', { exact: true }).selectOption('body');
  await page.getByLabel('Operator', { exact: true }).selectOption('ilike');
  await page.getByLabel('Value', { exact: true }).fill('*note*');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Rows 1–2 of 2').waitFor();
  await page.getByText('body=ilike.*note*').waitFor();
  await grid.getByRole('button', { name: 'id', exact: true }).click();
  await grid.getByRole('button', { name: 'id ▲' }).click();
  await grid.getByRole('button', { name: 'id ▼' }).waitFor();
  await page.getByText('order=id.desc').waitFor();
  // Ordered by id descending: the newer row comes first once the page has its answer.
  await grid.locator('tbody tr').first().filter({ hasText: 'second note' }).waitFor();
  await shot('database');

  // Delete the selected row.
  await grid.getByLabel('Select row 1').check();
  await page.getByRole('button', { name: 'Delete the selected row' }).click();
  await page.getByText('1 row deleted.').waitFor();
  await page.getByText('Rows 1–1 of 1').waitFor();

  // No primary key: read-only, and said why.
  await side.getByRole('link', { name: 'plain' }).click();
  await page.getByText('has no primary key, so the API cannot name one row').waitFor();
  expect(!(await page.getByRole('button', { name: 'Insert a row' }).count()), 'a table without a key offers Insert');

  // A query's rows; the history survives a reload.
  await runSql(page, 'select id, body from notes order by id', 'query');
  await page.getByRole('table', { name: 'Query result' }).getByText('first note, edited').waitFor();
  await page.reload();
  await page.getByRole('heading', { name: 'History' }).waitFor();
  await page.getByRole('button', { name: 'select id, body from notes order by id' }).click();
  expect((await page.getByLabel(/^SQL/).inputValue()) === 'select id, body from notes order by id', 'the history did not fill the editor');
  const stored = await page.evaluate(() => JSON.stringify(localStorage));
  expect(!/bth_|code=/.test(stored), 'something like a token is in localStorage');

  // Import a script, then export in every format the API offers.
  await side.getByRole('link', { name: 'Import and export' }).click();
  const dir = mkdtempSync(join(tmpdir(), 'console-import-'));
  const script = join(dir, 'more.sql');
  writeFileSync(script, "SET client_encoding = 'UTF8';\nBEGIN;\ncreate table imported (id int primary key);\ninsert into imported values (1), (2);\nCOMMIT;\n");
  await page.locator('input[aria-label="SQL script to import"]').setInputFiles(script);
  await page.getByText('Imported: 2 statements ran, 3 left out').waitFor();
  rmSync(dir, { recursive: true, force: true });
  await side.getByRole('link', { name: 'imported' }).waitFor();
  for (const [label, ends] of [['Download PostgreSQL', '.sql'], ['Download MySQL / MariaDB', '-mysql.sql'], ['Download JSON', '.json']]) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: label }).click()]);
    const file = download.suggestedFilename();
    expect(file.startsWith(name) && file.endsWith(ends), `${label} saved ${file}`);
  }
  await page.getByLabel('gzip the file').check();
  const [gz] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download JSON (.gz)' }).click()]);
  expect(gz.suggestedFilename().endsWith('.json.gz'), `gzip saved ${gz.suggestedFilename()}`);
  await shot('database-transfer');
});
