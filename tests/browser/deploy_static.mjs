// Deploy a static folder: a .tar.gz of it dropped onto the Deploys page uploads with progress,
// the build is followed until live, and the site answers at the project's own address.
import { runFlow, signIn, makeProject, openTab, expect } from './lib.mjs';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function packSite(words) {
  const dir = mkdtempSync(join(tmpdir(), 'berth-console-site-'));
  const site = join(dir, 'site');
  execFileSync('mkdir', ['-p', site]);
  writeFileSync(join(site, 'index.html'), `<!doctype html><title>Hi</title><h1>${words}</h1>\n`);
  writeFileSync(join(site, 'style.css'), 'h1 { color: teal; }\n');
  execFileSync('tar', ['czf', join(dir, 'site.tar.gz'), '-C', site, '.']);
  const bytes = readFileSync(join(dir, 'site.tar.gz'));
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

// Drops a file on the page's drop zone the way a person's drag does: a drop event carrying it.
async function dropFile(page, fileName, bytes) {
  await page.evaluate(({ fileName, b64 }) => {
    const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([raw], fileName, { type: 'application/gzip' }));
    const zone = document.querySelector('.dropzone');
    for (const type of ['dragenter', 'dragover', 'drop'])
      zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data }));
  }, { fileName, b64: bytes.toString('base64') });
}

runFlow('deploy_static', async ({ page, link, shot }) => {
  await signIn(page, link);
  const name = await makeProject(page, 'site');
  await openTab(page, 'Deploys');
  await page.getByText("Drop your app's folder or a .tar.gz of it here").waitFor();
  await page.getByText('No releases yet.').waitFor();

  // Something that is not a .tar.gz is refused before it is sent.
  await dropFile(page, 'notes.txt', Buffer.from('hello'));
  await page.getByText('notes.txt is not a .tar.gz').waitFor();

  const words = `Deployed from the console ${Date.now()}`;
  await dropFile(page, 'site.tar.gz', packSite(words));
  await page.getByText('is live at').waitFor({ timeout: 60000 });
  await page.locator('table.list .status.live').waitFor();
  await shot('deploy_static');

  // The overview shows the live release; the site answers at the project's address.
  await openTab(page, 'Overview');
  await page.getByText('files,').first().waitFor();
  const url = await page.locator('dl.facts a').first().getAttribute('href');
  expect(url.startsWith(`http://${name}.localhost:`), `unexpected address ${url}`);
  await page.getByRole('button', { name: 'Empty the edge cache' }).click();
  await page.getByText('The edge cache is empty').waitFor();
  await shot('deploy_static-overview');
  const site = await page.context().newPage();
  await site.goto(url);
  await site.getByRole('heading', { name: words }).waitFor();
  await shot('deploy_static-site', site);

  // A second release goes live; the first, now ready, is made live again from the list.
  await openTab(page, 'Deploys');
  await dropFile(page, 'site.tar.gz', packSite(`${words} (second)`));
  const rows = page.locator('table.list tbody tr');
  await rows.nth(1).locator('.status.ready').waitFor({ timeout: 60000 });
  await rows.nth(0).locator('.status.live').waitFor();
  await site.reload();
  await site.getByRole('heading', { name: `${words} (second)` }).waitFor();
  await rows.nth(1).getByRole('button', { name: 'Make live' }).click();
  await rows.nth(1).locator('.status.live').waitFor();
  await rows.nth(0).locator('.status.ready').waitFor();
  await site.reload();
  await site.getByRole('heading', { name: words, exact: true }).waitFor();

  // Both on the page of recent deploys across projects.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deploys' }).click();
  await page.getByRole('heading', { name: 'Recent deploys' }).waitFor();
  const ofProject = page.locator('table.list tbody tr', { hasText: name });
  await ofProject.nth(1).waitFor();
  const listed = await ofProject.count();
  expect(listed === 2, `${listed} releases of ${name} listed, not 2`);
  await shot('deploy_static-recent');
});
