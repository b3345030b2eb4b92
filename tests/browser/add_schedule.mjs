// Add a schedule: a spec checked as it is typed in the scheduler's words, then in plain words
// with its next runs; the API's own refusal of a bad path next to the form; the schedule listed
// with its next five runs, paused and resumed, its (empty) history, and deleted. A schedule of
// every minute (the suite's berthd runs the scheduler's test clock: a minute is 400 ms) runs
// against the project, which has no release yet: its last status and error, and its history.
import { runFlow, signIn, makeProject, openTab, expect } from './lib.mjs';

runFlow('add_schedule', async ({ page, link, shot }) => {
  await signIn(page, link);
  await makeProject(page, 'cron');
  await openTab(page, 'Schedules');
  await page.getByText('No schedules yet.').waitFor();

  await page.getByLabel('Name').fill('nightly report');
  await page.getByLabel('When (cron, UTC)').fill('0 24 * * *');
  await page.getByText('hour field: 24 is out of range 0-23').waitFor();
  await page.getByLabel('When (cron, UTC)').fill('30 2 * * 1-5');
  await page.getByText('At 02:30, on Monday to Friday, UTC. Next:').waitFor();

  // The API refuses a path without its leading slash, in its words, next to the form.
  await page.getByLabel('Path to request').fill('report');
  await page.getByRole('button', { name: 'Add schedule' }).click();
  await page.getByRole('alert').getByText('The path must start with /.').waitFor();
  await shot('add_schedule-refused');

  await page.getByLabel('Path to request').fill('/tasks/report?full=1');
  await page.getByRole('button', { name: 'Add schedule' }).click();
  await page.getByText('nightly report is scheduled.').waitFor();
  const card = page.getByRole('article', { name: 'Schedule nightly report' });
  await card.waitFor();
  await card.getByText('GET /tasks/report?full=1').waitFor();
  await card.getByText('not run yet').waitFor();
  const runs = await card.locator('ol.next-runs li').allInnerTexts();
  expect(runs.length === 5, `five next runs, not ${runs.length}`);
  for (const r of runs) {
    const at = new Date(r.replace(' UTC', 'Z').replace(' ', 'T'));
    expect(at.getUTCHours() === 2 && at.getUTCMinutes() === 30 && at.getUTCDay() >= 1 && at.getUTCDay() <= 5,
      `${r} is not a weekday at 02:30 UTC`);
  }
  await shot('add_schedule');

  await card.getByRole('button', { name: 'Pause' }).click();
  await card.getByText('none while paused').waitFor();
  await card.getByRole('button', { name: 'Resume' }).click();
  await card.locator('ol.next-runs li').first().waitFor();
  await card.getByRole('button', { name: 'Run history' }).click();
  await card.getByText('No runs yet.').waitFor();

  await card.getByRole('button', { name: 'Delete' }).click();
  await page.getByText('No schedules yet.').waitFor();

  await page.getByLabel('Name').fill('ping');
  await page.getByLabel('When (cron, UTC)').fill('* * * * *');
  await page.getByText('Every minute, every day, UTC. Next:').waitFor();
  await page.getByLabel('Path to request').fill('/ping');
  await page.getByRole('button', { name: 'Add schedule' }).click();
  const ping = page.getByRole('article', { name: 'Schedule ping' });
  await ping.waitFor();
  // No release: the project answers with an error status, which the run records.
  const lastError = ping.locator('dd .field-note.bad');
  for (let i = 0; i < 40 && !(await lastError.count()); i++) {
    await page.waitForTimeout(250);
    await page.getByRole('button', { name: 'Refresh' }).click();
  }
  const why = await lastError.innerText();
  expect(/^the project answered [0-9]{3}$/.test(why), `the last error reads "${why}"`);
  await ping.getByText(/[0-9]+ ms/).first().waitFor();
  await ping.getByRole('button', { name: 'Run history' }).click();
  await ping.locator('table.list tbody tr').first().waitFor();
  const historyError = await ping.locator('table.list tbody tr td.bad').first().innerText();
  expect(historyError === why || /^the project answered/.test(historyError), `a run's error reads "${historyError}"`);
  await shot('add_schedule-runs');
});
