// Teams on the Account page: make a team and see it (its owner is the caller), add a member by
// e-mail, change the member's role, remove the member; in a team where the caller is a plain
// member the controls are disabled with the reason. The suite's berthd has the accounts
// bo@example.com and a team "bocrew" owned by Bo with the caller as a member.
import { runFlow, signIn, expect } from './lib.mjs';

runFlow('teams', async ({ page, link, shot }) => {
  await signIn(page, link);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
  await page.getByRole('heading', { name: 'Teams' }).waitFor();

  // A slug the API would refuse is said while typing.
  await page.getByLabel('New team').fill('Crew');
  await page.getByText('a slug is 4 to 12 characters of a-z and 0-9: Crew').waitFor();
  const slug = `crew${Date.now().toString(36).slice(-6)}`;
  await page.getByLabel('New team').fill(slug);
  await page.getByRole('button', { name: 'Make the team' }).click();
  await page.getByText(`The team ${slug} is made; you are its owner.`).waitFor();
  const team = page.getByRole('article', { name: `Team ${slug}` });
  await team.getByText('you are its owner').waitFor();
  await team.getByRole('cell', { name: 'ann@example.com' }).waitFor();

  // The same slug again: the API's refusal in its words.
  await page.getByLabel('New team').fill(slug);
  await page.getByRole('button', { name: 'Make the team' }).click();
  await page.getByRole('alert').getByText(`the slug ${slug} is taken`, { exact: false }).waitFor();

  // Add Bo, make Bo an admin, remove Bo.
  await team.getByLabel('Add a member').fill('bo@example.com');
  await team.getByRole('button', { name: 'Add' }).click();
  await team.getByRole('cell', { name: 'bo@example.com' }).waitFor();
  await team.getByLabel('Role of bo@example.com').selectOption('admin');
  await page.waitForTimeout(300);
  await page.reload();
  await page.getByRole('article', { name: `Team ${slug}` }).getByLabel('Role of bo@example.com').waitFor();
  const role = await page.getByRole('article', { name: `Team ${slug}` }).getByLabel('Role of bo@example.com').inputValue();
  expect(role === 'admin', `Bo's role is ${role} after the change`);
  // An address with no account: the API's words.
  const again = page.getByRole('article', { name: `Team ${slug}` });
  await again.getByLabel('Add a member').fill('nobody@example.com');
  await again.getByRole('button', { name: 'Add' }).click();
  await again.getByText('No account with e-mail nobody@example.com.').waitFor();
  await shot('teams');
  await again.locator('tr', { hasText: 'bo@example.com' }).getByRole('button', { name: 'Remove' }).click();
  await again.getByRole('cell', { name: 'bo@example.com' }).waitFor({ state: 'detached' });

  // Bo's team, where the caller is a member: controls disabled, with the reason.
  const theirs = page.getByRole('article', { name: 'Team bocrew' });
  await theirs.getByText('you are its member').waitFor();
  await theirs.getByText('Only the owner or an admin of the team bocrew may change its members; you are a member').waitFor();
  expect(await theirs.getByLabel('Add a member').isDisabled(), 'a member can type a new member');
  expect(await theirs.getByRole('button', { name: 'Add' }).isDisabled(), 'a member can add');
  await shot('teams-member');

  // The new team is offered as an owner on New project.
  await page.getByRole('link', { name: 'Projects' }).click();
  await page.getByRole('link', { name: 'New project' }).first().click();
  await page.getByLabel('Owner').selectOption(slug);
});
