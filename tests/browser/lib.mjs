// What every console flow shares: Debian's chromium driven by playwright-core (which never
// downloads a browser), a page that fails the flow on any script error or CSP violation, sign-in
// by a one-time link, and screenshots. A flow is run as
//   node tests/browser/<flow>.mjs <baseUrl> <sign-in link> <screenshot dir>
// and prints "ok <flow>" and exits 0, or prints what went wrong and exits 1 (with a screenshot
// of the page as it was, <flow>-failed.png).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const CHROMIUM = process.env.BERTH_CHROMIUM || '/usr/bin/chromium';
const TIMEOUT_MS = 20000;

export async function runFlow(name, flow) {
  const [base, link, shots] = process.argv.slice(2);
  if (!base || !link || !shots) {
    console.error(`usage: node ${name}.mjs <baseUrl> <sign-in link> <screenshot dir>`);
    process.exit(2);
  }
  mkdirSync(shots, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Chromium's own sandbox cannot start as root (CI runs as root).
    args: process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [],
  });
  const problems = [];
  let page;
  const newPage = async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 820 } });
    const p = await context.newPage();
    p.setDefaultTimeout(TIMEOUT_MS);
    // A console that logs an error, throws, or trips its own CSP fails the flow.
    p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    p.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of (401|409|404|400|403|429|501)/.test(m.text()))
        problems.push(`console error: ${m.text()}`);
    });
    return p;
  };
  const shot = async (p, file) => {
    await p.screenshot({ path: join(shots, `${file}.png`), fullPage: true });
  };
  try {
    page = await newPage();
    await flow({ page, base, link, shot: (file, p = page) => shot(p, file), newPage, problems });
    if (problems.length) throw new Error(problems.join('\n'));
    console.log(`ok ${name}`);
    await browser.close();
    process.exit(0);
  } catch (e) {
    console.error(`FAILED ${name}: ${e && e.stack ? e.stack : e}`);
    if (problems.length) console.error(problems.join('\n'));
    if (page) {
      try {
        console.error(`at ${page.url()}`);
        await shot(page, `${name}-failed`);
      } catch {
        // the page may be gone
      }
    }
    await browser.close().catch(() => {});
    process.exit(1);
  }
}

// Opens the one-time link and waits for the projects page.
export async function signIn(page, link) {
  await page.goto(link);
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
}

// Makes a project by its chosen name through the New project page; returns its full name.
export async function makeProject(page, label) {
  await page.getByRole('link', { name: 'New project' }).first().click();
  await page.getByLabel('Name').fill(label);
  await page.getByText('Free. It will be at').waitFor();
  await page.getByRole('button', { name: 'Create project' }).click();
  const heading = page.locator('h1', { hasText: `${label}-` });
  await heading.waitFor();
  const name = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
  if (!name.startsWith(`${label}-`)) throw new Error(`the project page is for ${name}, not ${label}-<slug>`);
  return name;
}

export function expect(condition, what) {
  if (!condition) throw new Error(what);
}

// Opens one of a project page's tabs.
export async function openTab(page, name) {
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name }).click();
}

// Runs SQL in a project's Database tab's SQL editor (the tab open or not) and waits for the
// editor to say where it goes; returns once the answer is on the page.
export async function runSql(page, sql, route) {
  await page.getByRole('navigation', { name: 'Database' }).getByRole('link', { name: 'SQL editor' }).click();
  await page.getByLabel(/^SQL/).fill(sql);
  if (route) await page.getByText(`/${route}.`, { exact: false }).first().waitFor();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByRole('button', { name: 'Run', exact: true }).waitFor();
  await page.waitForFunction(() => !document.querySelector('.sql-editor button[type=submit]').textContent.includes('Running'));
}
