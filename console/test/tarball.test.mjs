// The tar writer behind a folder deployed from the browser: ustar header bytes, pax for long or
// non-ASCII names, sizes and padding, the folder's paths, and the gzip a real tar unpacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BLOCK, tarHeader, tarParts, tarBlob, gzipBlob, packFolder, paxRecord, ustarName, folderFiles, foldersOf,
  releasePathProblem,
} from '../src/tarball.js';

const text = (bytes, from, width) => new TextDecoder().decode(bytes.slice(from, from + width)).replace(/\0+$/, '');
const octal = (bytes, from, width) => parseInt(text(bytes, from, width).trim(), 8);
const file = (content, lastModified = 1700000000000) =>
  Object.assign(new Blob([content]), { lastModified });
const bytesOf = async (blob) => new Uint8Array(await blob.arrayBuffer());

test('an ustar header: fields at their offsets, magic, and a checksum over its own spaces', () => {
  const h = tarHeader({ name: 'index.html', size: 1234, mode: 0o644, mtime: 1700000000 });
  assert.equal(h.length, 512);
  assert.equal(text(h, 0, 100), 'index.html');
  assert.equal(text(h, 100, 8), '0000644');
  assert.equal(text(h, 124, 12), '00000002322'); // 1234 in octal, 11 digits
  assert.equal(octal(h, 124, 12), 1234);
  assert.equal(octal(h, 136, 12), 1700000000);
  assert.equal(text(h, 156, 1), '0');
  assert.equal(text(h, 257, 6), 'ustar');
  assert.equal(h[262], 0);
  assert.equal(text(h, 263, 2), '00');
  // The checksum: the sum of every byte with the checksum field counted as eight spaces,
  // written as six octal digits, a NUL and a space.
  const copy = h.slice();
  copy.fill(0x20, 148, 156);
  const sum = copy.reduce((a, b) => a + b, 0);
  assert.equal(text(h, 148, 6), sum.toString(8).padStart(6, '0'));
  assert.equal(h[154], 0);
  assert.equal(h[155], 0x20);
});

test('a long path splits into prefix and name at a slash; one that cannot goes to pax', () => {
  assert.deepEqual(ustarName('a/b.txt'), { name: 'a/b.txt', prefix: '' });
  const folders = `${'d'.repeat(60)}/${'e'.repeat(60)}`;
  // The first slash that leaves both parts in their fields.
  assert.deepEqual(ustarName(`${folders}/f.txt`), { name: `${'e'.repeat(60)}/f.txt`, prefix: 'd'.repeat(60) });
  assert.deepEqual(ustarName(`${'d'.repeat(60)}/${'e'.repeat(99)}`), { name: 'e'.repeat(99), prefix: 'd'.repeat(60) });
  assert.equal(ustarName('x'.repeat(101)), null); // no slash to split at
  assert.equal(ustarName(`${'p'.repeat(156)}/f`), null); // prefix over 155 bytes
  assert.equal(ustarName(`a/${'n'.repeat(101)}`), null); // name over 100 bytes
  assert.equal(ustarName('café.html'), null); // not ASCII: pax says UTF-8
});

test('a pax record counts its own length in bytes', () => {
  for (const value of ['a', 'x'.repeat(90), 'x'.repeat(95), 'é'.repeat(60), 'x'.repeat(1000)]) {
    const record = paxRecord('path', value);
    const bytes = new TextEncoder().encode(record).length;
    assert.equal(Number(record.split(' ')[0]), bytes, record.slice(0, 20));
    assert.ok(record.endsWith(`path=${value}\n`));
  }
});

test('files are padded to 512 bytes and the archive ends with two empty blocks', async () => {
  const tar = await bytesOf(tarBlob([{ path: 'a.txt', file: file('hello') }, { path: 'b.txt', file: file('') }]));
  // a.txt header, its 5 bytes padded to a block, b.txt header (no data), two empty blocks.
  assert.equal(tar.length, 5 * BLOCK);
  assert.equal(text(tar, 0, 100), 'a.txt');
  assert.equal(octal(tar, 124, 12), 5);
  assert.equal(text(tar, 512, 5), 'hello');
  assert.ok(tar.slice(517, 1024).every((b) => b === 0));
  assert.equal(text(tar, 1024, 100), 'b.txt');
  assert.equal(octal(tar, 1024 + 124, 12), 0);
  assert.ok(tar.slice(3 * BLOCK).every((b) => b === 0));
});

test('folders come first, parents before children, marked 5 with a slash', async () => {
  assert.deepEqual(foldersOf(['css/site.css', 'img/icons/a.png', 'index.html']), ['css', 'img', 'img/icons']);
  const tar = await bytesOf(tarBlob([{ path: 'css/site.css', file: file('h1{}') }]));
  assert.equal(text(tar, 0, 100), 'css/');
  assert.equal(text(tar, 156, 1), '5');
  assert.equal(text(tar, 100, 8), '0000755');
  assert.equal(text(tar, 512, 100), 'css/site.css');
});

test('a name ustar cannot hold gets a pax header holding the whole path', async () => {
  const long = `${'x'.repeat(120)}.html`;
  const tar = await bytesOf(tarBlob([{ path: long, file: file('x') }]));
  assert.equal(text(tar, 156, 1), 'x');
  const size = octal(tar, 124, 12);
  const records = text(tar, 512, size);
  assert.equal(records, paxRecord('path', long));
  // The real entry follows the pax data's block.
  assert.equal(text(tar, 1024 + 156, 1), '0');
});

test('a size past ustar\'s 8 GiB goes to pax; the header field alone refuses it', () => {
  assert.throws(() => tarHeader({ name: 'big', size: 2 ** 33 }), /does not fit/);
  const huge = { size: 2 ** 33, lastModified: 0 }; // never read: tarParts only places it
  const parts = tarParts([{ path: 'big.bin', file: huge }]);
  assert.equal(text(parts[0], 156, 1), 'x');
  assert.equal(new TextDecoder().decode(parts[1]), paxRecord('size', String(2 ** 33)));
  assert.equal(text(parts[3], 0, 100), 'big.bin');
  assert.equal(octal(parts[3], 124, 12), 0);
  assert.equal(parts[4], huge);
});

test('paths a release refuses are refused before packing, in the runtime\'s words', () => {
  assert.equal(releasePathProblem('a/b'), null);
  assert.equal(releasePathProblem('/etc/passwd'), '/etc/passwd: absolute paths are not allowed in a release');
  assert.equal(releasePathProblem('a/../b'), "a/../b: '..' is not allowed in a release path");
  assert.throws(() => tarBlob([{ path: '../x', file: file('') }]), /'\.\.' is not allowed/);
});

test('a chosen folder: paths relative to it, .git and .berth left out, sorted', () => {
  const chosen = [
    { path: 'site/index.html', file: 1 },
    { path: 'site/.git/HEAD', file: 2 },
    { path: 'site/css/.berth/x', file: 3 },
    { path: 'site/css/a.css', file: 4 },
  ];
  assert.deepEqual(folderFiles(chosen), [{ path: 'css/a.css', file: 4 }, { path: 'index.html', file: 1 }]);
});

test('the gzip unpacks with tar into the same files, long and non-ASCII names included', async () => {
  const long = `${'deep/'.repeat(30)}${'n'.repeat(110)}.txt`;
  const files = [
    { path: 'index.html', file: file('<h1>hi</h1>\n') },
    { path: 'css/site.css', file: file('h1 { color: teal; }\n') },
    { path: 'café/menü.txt', file: file('crème\n') },
    { path: long, file: file('far down\n') },
    { path: 'blob.bin', file: file(new Uint8Array(5000).map((_, i) => i % 251)) },
  ];
  const packed = await packFolder('site', files);
  assert.equal(packed.name, 'site.tar.gz');
  const gz = await bytesOf(packed);
  assert.equal(gz[0], 0x1f);
  assert.equal(gz[1], 0x8b);
  const dir = mkdtempSync(join(tmpdir(), 'console-tar-'));
  try {
    writeFileSync(join(dir, 'a.tar.gz'), gz);
    execFileSync('mkdir', [join(dir, 'out')]);
    execFileSync('tar', ['xzf', join(dir, 'a.tar.gz'), '-C', join(dir, 'out')]);
    for (const { path, file: f } of files) {
      const want = Buffer.from(await f.arrayBuffer());
      assert.deepEqual(readFileSync(join(dir, 'out', path)), want, path);
    }
    const listed = execFileSync('tar', ['tzf', join(dir, 'a.tar.gz')]).toString().trim().split('\n');
    assert.ok(listed.includes('css/'));
    assert.ok(listed.includes(long));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('gzipBlob is plain gzip', async () => {
  const gz = await bytesOf(await gzipBlob(new Blob(['abc'])));
  assert.equal(require_gunzip(gz), 'abc');
});

function require_gunzip(bytes) {
  return execFileSync('gzip', ['-dc'], { input: Buffer.from(bytes) }).toString();
}
