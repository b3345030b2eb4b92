// Stored files, pure: where a dropped file goes (the folder typed, then its name), and the API's
// path rules in its words, checked before anything is sent (POST /projects/{name}/files/{path}).
// node --test runs it (console/test/files.test.mjs).

// "a/b", from " /a//b/ ": no leading, trailing or double slash.
export function cleanFolder(folder) {
  return String(folder || '').trim().split('/').filter(Boolean).join('/');
}

// The stored path of a file dropped under `folder`.
export function storedPath(folder, fileName) {
  const base = cleanFolder(folder);
  return base ? `${base}/${fileName}` : fileName;
}

// Why the API would refuse a path, in its words and order; null when it would store it.
export function filePathProblem(path) {
  if (path === '') return 'a file path cannot be empty';
  if (new TextEncoder().encode(path).length > 1024) return 'a file path can be at most 1024 bytes';
  if (path.includes('\0')) return 'a file path cannot contain a NUL byte';
  if (path.includes('\\')) return 'a file path cannot contain a backslash';
  if (/[\x01-\x1f\x7f]/.test(path)) return 'a file path cannot contain control characters';
  if (/[\ud800-\udfff]/.test(path.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) return 'a file path must be UTF-8 text';
  const segments = path.split('/');
  if (segments.some((s) => s === '')) return 'a file path cannot have empty segments (no leading, trailing or double /)';
  if (segments.some((s) => s === '.' || s === '..')) return 'a file path cannot have . or .. segments';
  return null;
}
