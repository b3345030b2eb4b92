// The App templates page: the catalogue as cards (installable or not, and why), an installer's
// form refusing what its installer would refuse, as it is typed; and when the suite's berthd
// can install the content-management template (BERTH_CONSOLE_INSTALL_WORDPRESS=1), an install
// into a new project followed to its end, with the schedules and secret names it made.
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
  await page.getByLabel('Project name').fill('site');
  await page.getByText(/Free\. It will be at site-/).waitFor();
  await shot('templates-form');
  const wordpress = await page.getByRole('article', { name: 'Template WordPress' }).innerText();
  const installable = !wordpress.includes('Not installable');

  if (installable && process.env.BERTH_CONSOLE_INSTALL_WORDPRESS === '1') {
    await page.getByRole('button', { name: 'Install WordPress' }).click();
    await page.getByText('Installed into').waitFor({ timeout: 170000 });
    await page.getByText('Secrets it made:').waitFor();
    await shot('templates-installed');
  } else if (!installable) {
    expect(await page.getByRole('button', { name: 'Install WordPress' }).isDisabled(), 'an uninstallable template can be installed');
  }

  // The workflow installer asks for nothing.
  await page.getByRole('article', { name: 'Template n8n' }).getByRole('link').click();
  await page.getByRole('heading', { name: 'Install n8n' }).waitFor();
  await page.getByText("n8n's installer asks for nothing").waitFor();
});
