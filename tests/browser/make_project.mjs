// Make a project: the name is checked as it is typed, the project page follows, and the same
// name a second time is refused with the free name the API suggests, offered as a button.
import { runFlow, signIn, makeProject, expect } from './lib.mjs';

runFlow('make_project', async ({ page, link, shot }) => {
  await signIn(page, link);
  await page.getByRole('link', { name: 'New project' }).first().click();
  // A name breaking a rule is answered while typing, in the API's words.
  await page.getByLabel('Name').fill('-bad');
  await page.getByText('a project name cannot start or end with a hyphen').waitFor();
  await page.getByRole('link', { name: 'Projects' }).click();

  const name = await makeProject(page, 'blog');
  await page.getByText('Address').waitFor();
  await page.getByText(`http://${name}.localhost`).first().waitFor();
  await page.getByText('none yet: upload one in').waitFor();
  await shot('make_project-overview');

  // The same name again: taken while typing, with the free one offered.
  await page.getByRole('link', { name: 'Projects' }).click();
  await page.getByRole('link', { name }).waitFor();
  await page.getByRole('link', { name: 'New project' }).first().click();
  await page.getByLabel('Name').fill('blog');
  await page.getByText('You already have a project called blog.').waitFor();
  await page.getByRole('button', { name: 'Use blog-2' }).waitFor();
  await shot('make_project-taken');
  // Sent anyway, the 409 is shown next to the name with its suggestion.
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.getByText('You already have a project called blog. "blog-2" is free.').waitFor();
  await page.getByRole('alert').getByRole('button', { name: 'Use blog-2' }).click();
  expect((await page.getByLabel('Name').inputValue()) === 'blog-2', 'the suggestion was not taken');
  await page.getByText('Free. It will be at').waitFor();
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.locator('h1', { hasText: 'blog-2-' }).waitFor();

  // The list, filtered.
  await page.getByRole('link', { name: 'Projects' }).click();
  // Slugs have no hyphen, so "blog-2-" is the second project's alone ("blog-2" may begin a slug).
  await page.getByLabel('Filter projects').fill('blog-2-');
  await page.getByRole('link', { name: name }).waitFor({ state: 'detached' });
  await page.getByRole('link', { name: /^blog-2-/ }).waitFor();
  await page.getByLabel('Filter projects').fill('');
  await page.getByRole('link', { name }).waitFor();
  await shot('make_project');
});
