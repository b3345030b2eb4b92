// The App templates page: the catalogue as cards (installable or not, and why), an installer's
// form refusing what its installer would refuse, as it is typed; and when the suite's berthd
// has the content-management installer, WordPress installed into a new project, the install
// followed from its 202 to its end, the schedules and secret names it made, and the site.
import { runFlow, signIn, expect } from './lib.mjs';

runFlow('templates', async ({ page, link, shot }) => {
  await signIn(page, link);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'App templates' }).click();
  await page.getByRole('heading', { name: 'App templates' }).waitFor();
  for (const name of ['WordPress', 'n8n', 'Ghost', 'Metabase']) await page.getByRole('article', { name: `Template ${name}` }).waitFor();
  const cards = await page.locator('article.card').count();
  expect(cards >= 11, `${cards} cards, not the catalogue's eleven`);
  const ghost = page.getByRole('article', { name: 'Template Ghost' });
  await ghost.getByText('Not installable here').waitFor();
  await shot('templates');

  // The content-management installer's form: its refusals as typed, in its words.
  await page.getByRole('article', { name: 'Template WordPress' }).getByRole('link').click();
  await page.getByRole('heading', { name: 'Install WordPress' }).waitFor();
  await page.getByLabel('Administrator e-mail').fill('ann');
  await page.getByText('email must be an e-mail address such as ann@example.com (6 to 100 characters)').waitFor();
  await page.getByLabel('Administrator e-mail').fill('ann@example.com');
  await page.getByLabel('Administrator password').fill('short');
  await page.getByText('password must be at least 8 characters').waitFor();
  await page.getByLabel('Administrator password').fill(' padded password');
  await page.getByText('password must not start or end with white space').waitFor();
  await page.getByLabel('Administrator user name').fill('ann smith');
  await page.getByText("user must be 1 to 60 characters of letters, digits, '_', '-', '.' and '@'").waitFor();
  await page.getByLabel('Administrator user name').fill('');
  await page.getByLabel('Administrator password').fill('correct horse battery');
  await page.getByLabel('Project name').fill('press');
  await page.getByText(/Free\. It will be at press-/).waitFor();
  await shot('templates-form');
  const wordpress = await page.getByRole('article', { name: 'Template WordPress' }).innerText();
  const installable = !wordpress.includes('Not installable');

  if (installable) {
    // Into a new project: made first, then the install, which answers 202 after the suite's
    // three seconds and is followed to its end; then what it made, and the site itself.
    await page.getByLabel('Site title').fill('Made in the console');
    await page.getByRole('button', { name: 'Install WordPress' }).click();
    await page.getByText('Installing into').waitFor();
    await shot('templates-installing');
    await page.getByText('Installed into').waitFor({ timeout: 150000 });
    await page.getByText('Secrets it made:').waitFor();
    await shot('templates-installed');
    const app = await page.getByRole('link', { name: 'Open the app ↗' }).getAttribute('href');
    expect(app.startsWith('http://press-'), `the app is at ${app}`);
    const site = await page.context().newPage();
    // Asked once: its first answer arrives whole even though the edge reloads while it is sent
    // (the edge pins its workers). 'domcontentloaded': the page's outside resources (none
    // reachable here) are not waited for.
    await site.goto(app, { timeout: 60000, waitUntil: 'domcontentloaded' });
    await site.getByText('Made in the console').first().waitFor();
    await shot('templates-site', site);
    await site.close();
  } else {
    expect(await page.getByRole('button', { name: 'Install WordPress' }).isDisabled(), 'an uninstallable template can be installed');
  }
  // The workflow installer asks for nothing.
  await page.getByRole('article', { name: 'Template n8n' }).getByRole('link').click();
  await page.getByRole('heading', { name: 'Install n8n' }).waitFor();
  await page.getByText("n8n's installer asks for nothing").waitFor();
});
