// The console's client of the public JSON API (docs/openapi.yaml), and nothing else: whatever
// the console does, a script can do with the same routes.
//
// It keeps no bearer token. The session cookie (__Host-berth_session, HttpOnly) signs every
// request; the browser sends it and the page never sees it. A pasted token is sent once, to
// POST /session, which answers with the cookie, and is dropped. Requests that change something
// carry X-Berth-Console: 1 (the browser adds Sec-Fetch-Site: same-origin), which berthd asks of
// a cookie request other than GET or HEAD.
//
// Pure apart from the fetch it is given: node --test drives it with a fake one.
import { ApiError, errorFromAnswer } from './errors.js';

export function createApi({ fetch: fetchImpl, base = '' } = {}) {
  const doFetch = fetchImpl || globalThis.fetch.bind(globalThis);

  async function request(method, path, { json, headers = {}, body } = {}) {
    const sent = { 'X-Berth-Console': '1', ...headers };
    let payload = body;
    if (json !== undefined) {
      sent['Content-Type'] = 'application/json';
      payload = JSON.stringify(json);
    }
    let answer;
    try {
      answer = await doFetch(base + path, {
        method,
        headers: sent,
        body: payload,
        credentials: 'same-origin',
        cache: 'no-store',
      });
    } catch (e) {
      throw new ApiError({ status: 0, error: e && e.message ? e.message : 'network error', method, path });
    }
    const text = await answer.text();
    if (!answer.ok) {
      throw errorFromAnswer(answer.status, text, answer.headers.get('Retry-After'), method, path);
    }
    if (answer.status === 204 || text === '') return null;
    try {
      return JSON.parse(text);
    } catch {
      throw new ApiError({ status: answer.status, error: 'the answer was not JSON', method, path });
    }
  }

  const q = encodeURIComponent;
  const project = (name) => `/projects/${q(name)}`;
  const filePath = (path) => String(path).split('/').map(q).join('/');

  return {
    request,

    // Sign-in: either way ends with the session cookie set by the answer.
    signInWithCode: (code) => request('POST', '/session', { json: { code } }),
    signInWithToken: (token) =>
      request('POST', '/session', { json: {}, headers: { Authorization: `Bearer ${token}` } }),
    signOut: () => request('DELETE', '/session'),

    me: () => request('GET', '/me'),
    regions: () => request('GET', '/regions'),

    projects: () => request('GET', '/projects').then((r) => r.projects),
    project: (name) => request('GET', project(name)),
    available: (name, team = '') =>
      request('GET', `/projects/available?name=${q(name)}${team ? `&team=${q(team)}` : ''}`),
    suggest: () => request('GET', '/projects/suggest').then((r) => r.name),
    createProject: (name, team = '') =>
      request('POST', '/projects', { json: team ? { name, team } : { name } }),
    purgeCache: (name) => request('DELETE', `${project(name)}/cache`),

    allDeploys: () => request('GET', '/deploys').then((r) => r.deploys),
    deploys: (name) => request('GET', `${project(name)}/deploys`).then((r) => r.deploys),
    release: (name, id) => request('GET', `${project(name)}/deploys/${q(id)}`),
    promote: (name, id) => request('POST', `${project(name)}/deploys/${q(id)}/promote`),

    secrets: (name) => request('GET', `${project(name)}/secrets`).then((r) => r.secrets),
    setSecret: (name, secret, value, scope = 'runtime') =>
      request('POST', `${project(name)}/secrets`, { json: { name: secret, value, scope } }),
    deleteSecret: (name, secret) => request('DELETE', `${project(name)}/secrets/${q(secret)}`),

    updateProject: (name, fields) => request('PATCH', project(name), { json: fields }),
    deleteProject: (name) => request('DELETE', project(name)),

    logs: (name, { after = null, limit = 200 } = {}) =>
      request('GET', `${project(name)}/logs?limit=${limit}${after ? `&after=${q(after)}` : ''}`),

    schedules: (name) => request('GET', `${project(name)}/schedules`).then((r) => r.schedules),
    addSchedule: (name, fields) => request('POST', `${project(name)}/schedules`, { json: fields }),
    setScheduleEnabled: (name, id, enabled) =>
      request('PATCH', `${project(name)}/schedules/${q(id)}`, { json: { enabled } }),
    deleteSchedule: (name, id) => request('DELETE', `${project(name)}/schedules/${q(id)}`),
    scheduleRuns: (name, id) => request('GET', `${project(name)}/schedules/${q(id)}/runs`).then((r) => r.runs),

    domains: (name) => request('GET', `${project(name)}/domains`).then((r) => r.domains),
    addDomain: (name, host) => request('POST', `${project(name)}/domains`, { json: { host } }),
    verifyDomain: (name, host) => request('POST', `${project(name)}/domains/${q(host)}/verify`),
    deleteDomain: (name, host) => request('DELETE', `${project(name)}/domains/${q(host)}`),

    files: (name) => request('GET', `${project(name)}/files`).then((r) => r.files),
    // Each segment percent-encoded, the slashes kept: the API's path is the decoded one.
    uploadFile: (name, path, blob) =>
      request('POST', `${project(name)}/files/${filePath(path)}`, { body: blob }),
    deleteFile: (name, path) => request('DELETE', `${project(name)}/files/${filePath(path)}`),

    // The project's database (the sqlconsole plugin's routes).
    tables: (name) => request('GET', `${project(name)}/tables`).then((r) => r.tables),
    views: (name) => request('GET', `${project(name)}/views`).then((r) => r.views),
    indexes: (name) => request('GET', `${project(name)}/indexes`).then((r) => r.indexes),
    backup: (name) => request('GET', `${project(name)}/backup`),
    // `query` is the query string the rows grammar reads (src/rows.js builds it).
    rows: (name, table, query) => request('GET', `${project(name)}/tables/${q(table)}/rows?${query}`),
    insertRows: (name, table, rows) => request('POST', `${project(name)}/tables/${q(table)}/rows`, { json: rows }),
    updateRows: (name, table, query, fields) =>
      request('PATCH', `${project(name)}/tables/${q(table)}/rows?${query}`, { json: fields }),
    deleteRows: (name, table, query) => request('DELETE', `${project(name)}/tables/${q(table)}/rows?${query}`),
    // `route` is sql, query or batch, as src/sqlroute.js chose it.
    runSql: (name, route, body) => request('POST', `${project(name)}/${route}`, { json: body }),
    exportUrl: (name, format, gzip) => `${base}${project(name)}/export?format=${q(format)}${gzip ? '&gzip=1' : ''}`,

    dataApi: (name) => request('GET', `${project(name)}/data-api`),
    setDataApiTable: (name, table, flags) => request('PUT', `${project(name)}/data-api/tables/${q(table)}`, { json: flags }),
    setDataApiFunction: (name, fn, enabled) =>
      request('PUT', `${project(name)}/data-api/functions/${q(fn)}`, { json: { enabled } }),
    rotateDataApiKey: (name) => request('POST', `${project(name)}/data-api/key`),

    appTemplates: () => request('GET', '/app-templates').then((r) => r.templates),
    // 200 with what the install made, or 202 {status: "installing", progress, status_url}.
    installTemplate: (name, slug, body) =>
      request('POST', `${project(name)}/app-templates/${q(slug)}/install`, body ? { json: body } : {}),
    templateInstall: (name, slug) => request('GET', `${project(name)}/app-templates/${q(slug)}/install`),

    teams: () => request('GET', '/teams').then((r) => r.teams),
    createTeam: (slug) => request('POST', '/teams', { json: { slug } }),
    members: (slug) => request('GET', `/teams/${q(slug)}/members`).then((r) => r.members),
    setMember: (slug, email, role) =>
      request('POST', `/teams/${q(slug)}/members`, { json: { email, role } }).then((r) => r.members),
    removeMember: (slug, account) => request('DELETE', `/teams/${q(slug)}/members/${q(account)}`),

    tokens: () => request('GET', '/tokens').then((r) => r.tokens),
    createToken: (tokenName, expiresInDays = null) =>
      request('POST', '/tokens', {
        json: expiresInDays ? { name: tokenName, expires_in_days: expiresInDays } : { name: tokenName },
      }),
    revokeToken: (id) => request('DELETE', `/tokens/${q(id)}`),
  };
}

// Sends a file as the raw body of a POST with progress: fetch cannot report an upload's
// progress, so these requests use XMLHttpRequest. onProgress(sent, total) is called as bytes
// leave; the promise has the JSON answer, or the API's refusal as an ApiError.
export function uploadWithProgress(path, file, contentType, onProgress, XHR = globalThis.XMLHttpRequest) {
  return new Promise((resolve, reject) => {
    const xhr = new XHR();
    xhr.open('POST', path);
    xhr.setRequestHeader('X-Berth-Console', '1');
    xhr.setRequestHeader('Content-Type', contentType);
    xhr.upload.onprogress = (e) => onProgress && onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onerror = () => reject(new ApiError({ status: 0, error: 'the upload was cut off', method: 'POST', path }));
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText));
        } catch {
          reject(new ApiError({ status: xhr.status, error: 'the answer was not JSON', method: 'POST', path }));
        }
      } else {
        reject(errorFromAnswer(xhr.status, xhr.responseText, xhr.getResponseHeader('Retry-After'), 'POST', path));
      }
    };
    xhr.send(file);
  });
}

// A release archive (.tar.gz) for POST /projects/{name}/deploys.
export function uploadRelease(projectName, file, onProgress, XHR = globalThis.XMLHttpRequest) {
  return uploadWithProgress(`/projects/${encodeURIComponent(projectName)}/deploys`, file, 'application/gzip', onProgress, XHR);
}

// A SQL script for POST /projects/{name}/import (the raw body, not multipart).
export function uploadImport(projectName, file, onProgress, XHR = globalThis.XMLHttpRequest) {
  return uploadWithProgress(`/projects/${encodeURIComponent(projectName)}/import`, file, 'application/sql', onProgress, XHR);
}
