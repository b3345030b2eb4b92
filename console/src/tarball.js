// A folder packed in the browser for a deploy: a POSIX tar (ustar headers, with a pax extended
// header for what ustar cannot hold) compressed with the browser's own CompressionStream, so
// the Deploys page uploads it exactly like a .tar.gz made with `tar czf`. The runtime unpacks
// it with libarchive (pax and UTF-8 names read).
//
// Pure apart from Blob and CompressionStream, which Node has too: node --test runs it
// (console/test/tarball.test.mjs). File contents are never read into memory here: each file is
// a Blob part of the archive, between its header and its padding.

export const BLOCK = 512;
// The largest size an ustar header's 11 octal digits hold (8 GiB - 1); larger needs pax.
export const USTAR_MAX_SIZE = 0o77777777777;

const encoder = new TextEncoder();

// Folders a deploy never ships, as the command line's `berth deploy` leaves them out.
const LEFT_OUT = new Set(['.git', '.berth']);

// Why a relative path cannot go into a release (the runtime's refusals, said before packing);
// null when it can.
export function releasePathProblem(path) {
  if (!path) return 'a path in the folder is empty';
  if (path.startsWith('/')) return `${path}: absolute paths are not allowed in a release`;
  if (path.includes('\0')) return `${path}: a path cannot contain a NUL byte`;
  const parts = path.split('/');
  if (parts.some((p) => p === '..')) return `${path}: '..' is not allowed in a release path`;
  if (parts.some((p) => p === '' || p === '.')) return `${path}: empty or . segments are not allowed in a release path`;
  return null;
}

// The files of a folder chosen with <input webkitdirectory> (each File's webkitRelativePath
// starts with the folder's own name) or dropped (paths the drop handler made the same way):
// [{path, file}] relative to the folder itself, as `tar czf app.tar.gz -C folder .` would
// have them, without .git and .berth. `chosen` is [{path, file}] with the folder's name first.
export function folderFiles(chosen) {
  const out = [];
  for (const { path, file } of chosen) {
    const parts = String(path).split('/').filter((p) => p !== '');
    const inside = parts.slice(1);
    if (inside.length === 0) continue;
    if (inside.some((p) => LEFT_OUT.has(p))) continue;
    out.push({ path: inside.join('/'), file });
  }
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

// Every folder the files sit in, parents first: tar lists a folder before what it holds.
export function foldersOf(paths) {
  const seen = new Set();
  const out = [];
  for (const path of paths) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (!seen.has(folder)) {
        seen.add(folder);
        out.push(folder);
      }
    }
  }
  return out;
}

// An octal number written into `width` bytes: width-1 digits, zero-padded, then a NUL.
function octal(value, width) {
  const digits = value.toString(8).padStart(width - 1, '0');
  if (digits.length > width - 1) throw new Error(`${value} does not fit in a tar header field of ${width} bytes`);
  return digits + '\0';
}

function put(block, offset, width, text) {
  const bytes = typeof text === 'string' ? encoder.encode(text) : text;
  if (bytes.length > width) throw new Error(`a tar header field of ${width} bytes cannot hold ${bytes.length}`);
  block.set(bytes, offset);
}

// ustar's name and prefix for a path, or null when it cannot hold it: the name field takes 100
// bytes, and a longer path may put its folders (up to 155 bytes) in the prefix field, split at
// a slash. Paths that are not plain ASCII go to pax too, whose path record is UTF-8 by
// definition (ustar says nothing of a name's encoding).
export function ustarName(path) {
  if (!/^[\x20-\x7e]*$/.test(path)) return null;
  if (path.length <= 100) return { name: path, prefix: '' };
  for (let cut = path.indexOf('/'); cut !== -1; cut = path.indexOf('/', cut + 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (prefix.length <= 155 && name.length > 0 && name.length <= 100) return { name, prefix };
  }
  return null;
}

// One 512-byte header. type: '0' a file, '5' a folder, 'x' a pax extended header.
export function tarHeader({ name, prefix = '', size = 0, mode = 0o644, mtime = 0, type = '0' }) {
  const block = new Uint8Array(BLOCK);
  put(block, 0, 100, name);
  put(block, 100, 8, octal(mode, 8));
  put(block, 108, 8, octal(0, 8)); // uid
  put(block, 116, 8, octal(0, 8)); // gid
  put(block, 124, 12, octal(size, 12));
  put(block, 136, 12, octal(Math.max(0, Math.floor(mtime)), 12));
  put(block, 148, 8, '        '); // the checksum counts its own field as spaces
  put(block, 156, 1, type);
  put(block, 257, 6, 'ustar\0');
  put(block, 263, 2, '00');
  put(block, 265, 32, 'root');
  put(block, 297, 32, 'root');
  put(block, 329, 8, octal(0, 8));
  put(block, 337, 8, octal(0, 8));
  put(block, 345, 155, prefix);
  let sum = 0;
  for (const b of block) sum += b;
  put(block, 148, 8, octal(sum, 7) + ' ');
  return block;
}

// A pax record, "<length> <key>=<value>\n", whose length counts its own digits.
export function paxRecord(key, value) {
  const body = ` ${key}=${value}\n`;
  const bodyBytes = encoder.encode(body).length;
  let length = bodyBytes + 1;
  while (String(length).length + bodyBytes !== length) length = String(length).length + bodyBytes;
  return `${length}${body}`;
}

function padding(size) {
  const rest = size % BLOCK;
  return rest === 0 ? null : new Uint8Array(BLOCK - rest);
}

// The header blocks of one entry: a pax header first when ustar cannot say the path or size.
function entryHeaders({ path, size, mode, mtime, type }) {
  const shown = type === '5' ? `${path}/` : path;
  const fits = ustarName(shown);
  const records = [];
  if (!fits) records.push(paxRecord('path', shown));
  if (size > USTAR_MAX_SIZE) records.push(paxRecord('size', String(size)));
  const out = [];
  if (records.length) {
    const data = encoder.encode(records.join(''));
    const base = shown.replace(/\/$/, '').split('/').pop();
    const paxName = `PaxHeaders/${base.replace(/[^\x20-\x7e]/g, '_')}`.slice(0, 100);
    out.push(tarHeader({ name: paxName, size: data.length, mode: 0o644, mtime, type: 'x' }));
    out.push(data);
    const pad = padding(data.length);
    if (pad) out.push(pad);
  }
  // ustar's own fields still hold what they can: a shortened name, a size of 0 past the limit.
  const ustar = fits || { name: shown.slice(-100).replace(/[^\x20-\x7e]/g, '_'), prefix: '' };
  out.push(tarHeader({ name: ustar.name, prefix: ustar.prefix, size: size > USTAR_MAX_SIZE ? 0 : size, mode, mtime, type }));
  return out;
}

// The parts of a tar archive (Uint8Arrays and the files' own Blobs) for `files`, [{path, file}]
// with file a Blob (a File's lastModified is its time; a Blob's is 0). Folders come first, then
// each file with its header and padding, then two empty blocks. Throws on a path that cannot go
// into a release.
export function tarParts(files) {
  for (const { path } of files) {
    const problem = releasePathProblem(path);
    if (problem) throw new Error(problem);
  }
  const parts = [];
  const newest = files.reduce((t, { file }) => Math.max(t, file.lastModified || 0), 0);
  for (const folder of foldersOf(files.map((f) => f.path))) {
    parts.push(...entryHeaders({ path: folder, size: 0, mode: 0o755, mtime: newest / 1000, type: '5' }));
  }
  for (const { path, file } of files) {
    parts.push(...entryHeaders({ path, size: file.size, mode: 0o644, mtime: (file.lastModified || 0) / 1000, type: '0' }));
    parts.push(file);
    const pad = padding(file.size);
    if (pad) parts.push(pad);
  }
  parts.push(new Uint8Array(2 * BLOCK));
  return parts;
}

export function tarBlob(files) {
  return new Blob(tarParts(files), { type: 'application/x-tar' });
}

// The gzip of a Blob, streamed through CompressionStream('gzip').
export async function gzipBlob(blob) {
  const stream = blob.stream().pipeThrough(new CompressionStream('gzip'));
  const out = await new Response(stream).blob();
  return new Blob([out], { type: 'application/gzip' });
}

// A folder's files as the .tar.gz a deploy uploads, named after the folder.
export async function packFolder(folderName, files) {
  const gz = await gzipBlob(tarBlob(files));
  const name = `${folderName || 'folder'}.tar.gz`;
  return typeof File === 'function' ? new File([gz], name, { type: 'application/gzip' }) : Object.assign(gz, { name });
}
