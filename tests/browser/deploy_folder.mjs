// Deploy a folder packed in the browser: a folder chosen on the Deploys page is packed into a
// .tar.gz (tar written in the page, gzip by CompressionStream), uploaded with progress, built
// until live, and the site answers at the project's own address, nested and long names too.
import { runFlow, signIn, makeProject, openTab, expect } from './lib.mjs';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

runFlow('deploy_folder', async ({ page, link, shot }) => {
  await signIn(page, link);
  await makeProject(page, 'folder');
  const url = await page.locator('dl.facts a').first().getAttribute('href');
  await openTab(page, 'Deploys');
  await page.getByText("Drop your app's folder or a .tar.gz of it here").waitFor();

  const words = `Packed in the browser ${Date.now()}`;
  const dir = mkdtempSync(join(tmpdir(), 'console-folder-'));
  const site = join(dir, 'my-site');
  const deep = `${'nested/'.repeat(16)}${'page-with-a-long-name-'.repeat(4)}.html`;
  mkdirSync(join(site, 'css'), { recursive: true });
  mkdirSync(join(site, '.git'), { recursive: true });
  mkdirSync(join(site, deep.slice(0, deep.lastIndexOf('/'))), { recursive: true });
  writeFileSync(join(site, 'index.html'), `<!doctype html><title>Folder</title><link rel="stylesheet" href="css/site.css"><h1>${words}</h1>\n`);
  writeFileSync(join(site, 'css', 'site.css'), 'h1 { color: teal; }\n');
  writeFileSync(join(site, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(site, deep), '<!doctype html><h1>Deep down</h1>\n');

  await page.locator('input[aria-label="App folder"]').setInputFiles(site);
  await page.getByText('The folder my-site: 3 files').waitFor();
  await page.getByText('packed into my-site.tar.gz').waitFor();
  await page.getByText('is live at').waitFor({ timeout: 60000 });
  await page.locator('table.list .status.live').waitFor();
  await shot('deploy_folder');
  rmSync(dir, { recursive: true, force: true });

  const visit = await page.context().newPage();
  await visit.goto(url);
  await visit.getByRole('heading', { name: words }).waitFor();
  // The other files, read by the browser at the project's address (*.localhost is the
  // browser's own loopback name).
  const read = async (path) => {
    const page2 = await page.context().newPage();
    const answer = await page2.goto(`${url}/${path}`);
    const text = await answer.text();
    await page2.close();
    return { status: answer.status(), text };
  };
  const css = await read('css/site.css');
  expect(css.status === 200 && css.text.includes('teal'), `css/site.css answered ${css.status}`);
  const far = await read(deep);
  expect(far.status === 200 && far.text.includes('Deep down'), `the long path answered ${far.status}`);
  const git = await read('.git/HEAD');
  expect(!git.text.includes('refs/heads'), '.git was deployed');
  await shot('deploy_folder-site', visit);
});
