// The guestbook app: one page of entries, with no npm dependencies (`node server.js`).
//
// What it gets from Berth, all in its environment:
// - PORT: where to listen (on 127.0.0.1; the edge proxies the project's address to it);
// - BERTH_URL: the address people reach the project at;
// - HOME: the project's writable folder, kept across releases (the release itself is
//   read-only), where the entries are kept;
// - GUESTBOOK_SECRET: the secret the installer generated once; every entry is signed with it,
//   so entries written before a second install still verify after it. Only its name is ever
//   shown.
// Its title is in settings.json beside it, which the installer writes into each release.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const path = require('path');

const SECRET_NAME = 'GUESTBOOK_SECRET';
const secret = process.env[SECRET_NAME];
if (!secret) {
  console.error(`${SECRET_NAME} is not set: install the guestbook through Berth`);
  process.exit(1);
}
const address = process.env.BERTH_URL || '';
const { title } = JSON.parse(fs.readFileSync(path.join(__dirname, 'settings.json'), 'utf8'));
const entriesFile = path.join(process.env.HOME, 'guestbook.jsonl');

const sign = (at, text) =>
  crypto.createHmac('sha256', secret).update(`${at}\n${text}`).digest('hex');

function readEntries() {
  let lines;
  try {
    lines = fs.readFileSync(entriesFile, 'utf8').split('\n').filter(Boolean);
  } catch (e) {
    if (e.code === 'ENOENT') return [];
    throw e;
  }
  return lines.map((line) => {
    const { at, text, signature } = JSON.parse(line);
    return { at, text, verified: signature === sign(at, text) };
  });
}

function addEntry(text) {
  const at = Math.floor(Date.now() / 1000);
  fs.appendFileSync(entriesFile, JSON.stringify({ at, text, signature: sign(at, text) }) + '\n');
}

const escape = (s) =>
  String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page() {
  const items = readEntries()
    .reverse()
    .map((e) => `<li>${escape(e.text)}${e.verified ? '' : ' <em>(not signed with this secret)</em>'}</li>`)
    .join('\n');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escape(title)}</title></head>
<body>
<h1>${escape(title)}</h1>
<p>Running on <a href="${escape(address)}">${escape(address)}</a>.
Entries are signed with the secret <code>${SECRET_NAME}</code>.</p>
<form method="post" action="/entries"><input name="text" maxlength="500" required>
<button>Sign the guestbook</button></form>
<ul>
${items}
</ul>
</body></html>
`;
}

function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

http
  .createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/') return send(res, 200, 'text/html; charset=utf-8', page());
    if (req.method === 'GET' && req.url === '/entries.json')
      return send(res, 200, 'application/json',
                  JSON.stringify({ title, url: address, secret: SECRET_NAME, entries: readEntries() }));
    if (req.method === 'POST' && req.url === '/entries') {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => {
        body += chunk;
        if (body.length > 10000) req.destroy();
      });
      req.on('end', () => {
        const text = (new URLSearchParams(body).get('text') || '').trim();
        if (text.length < 1 || text.length > 500)
          return send(res, 400, 'text/plain; charset=utf-8', 'an entry is 1 to 500 characters\n');
        addEntry(text);
        res.writeHead(303, { location: '/', 'cache-control': 'no-store' });
        res.end();
      });
      return;
    }
    send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
