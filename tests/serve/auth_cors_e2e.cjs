// `ogai serve`'s gate in front of every route, on stories260k: the API key (OGAI_API_KEY or
// --api-key; 401 with OpenAI's error body through the real `openai` npm client; the probes open
// unless --protect-probes), CORS (the preflight's 204 and Access-Control-* fields for an allowed
// origin, none for another), the request id (x-request-id echoed or generated, on every answer)
// and the access log line per request (text and --log-format json). With Debian's chromium
// installed, a headless Chromium page on another origin calls the server (the real browser check);
// without it that case is skipped, saying so.
//   node auth_cors_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('child_process');
const { promisify } = require('util');
const fs = require('fs');
const os = require('os');
const path = require('path');
const nodeHttp = require('http');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer, http } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const MODEL = 'stories260k';
const KEY = 'sk-ogai-test-0123456789';

function bearer(key) { return { authorization: `Bearer ${key}` }; }

function checkUnauthorized(r, what) {
  assert.equal(r.status, 401, what);
  assert.equal(r.headers.get('www-authenticate'), 'Bearer', what);
  assert.equal(r.json.error.type, 'invalid_request_error', what);
  assert.equal(r.json.error.code, 'invalid_api_key', what);
  assert.equal(r.json.error.param, null, what);
  assert.ok(!r.text.includes(KEY), `${what}: the key must never be echoed`);
}

// The access log lines (text format) of the server so far.
function accessLines(server) {
  return server.stderr().split('\n').filter((l) => l.includes('access: '));
}

// Resolves once the server's stderr holds a line matching `re` (the line is written when the
// answer's Exchange ends, a moment after the client has read it).
async function logLine(server, re) {
  for (let i = 0; i < 100; ++i) {
    const line = server.stderr().split('\n').find((l) => re.test(l));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`no log line matches ${re}:\n${server.stderr()}`);
}

// A page server on its own port (another origin than the API's).
function startPageServer(html) {
  return new Promise((resolve) => {
    const s = nodeHttp.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html());
    });
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}

describe('API key, CORS, request ids and the access log (stories260k)', () => {
  let server;        // OGAI_API_KEY from the environment, CORS for the page origin
  let pageServer;    // serves the browser page from another origin
  let pageOrigin;
  let strict;        // --api-key --protect-probes, no CORS
  const page = { html: '' };
  before(async () => {
    pageServer = await startPageServer(() => page.html);
    pageOrigin = `http://127.0.0.1:${pageServer.address().port}`;
    server = await startServer(ogai, stories, ['--cors-origin', pageOrigin, '--cors-origin', 'http://allowed.test'],
                               { OGAI_API_KEY: KEY });
    strict = await startServer(ogai, stories, ['--api-key', KEY, '--protect-probes', '--no-access-log']);
  });
  after(async () => {
    pageServer.close();
    for (const s of [server, strict]) {
      const end = await stopServer(s, 'SIGTERM');
      assert.equal(end.code, 0, end.stderr);
    }
  });

  it('refuses a missing or wrong key with 401 and an OpenAI error body', async () => {
    checkUnauthorized(await http(server.url + '/v1/models'), 'no Authorization');
    checkUnauthorized(await http(server.url + '/v1/models', { headers: bearer('sk-wrong') }), 'wrong key');
    checkUnauthorized(await http(server.url + '/v1/models', { headers: { authorization: KEY } }), 'no Bearer scheme');
    checkUnauthorized(await http(server.url + '/v1/models', { headers: bearer(KEY + 'x') }), 'longer key');
    const missing = await http(server.url + '/v1/chat/completions', { method: 'POST', body: '{}' });
    checkUnauthorized(missing, 'POST without a key');
    assert.match(missing.json.error.message, /didn't provide an API key/);
  });

  it('the openai client: the wrong key raises AuthenticationError, the right one chats', async () => {
    const wrong = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'sk-wrong', maxRetries: 0 });
    await assert.rejects(wrong.models.list(), (e) => e instanceof OpenAI.AuthenticationError && e.status === 401 &&
                         e.code === 'invalid_api_key');
    const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: KEY, maxRetries: 0 });
    const r = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Once' }],
                                                     max_tokens: 5, temperature: 0 });
    assert.equal(r.object, 'chat.completion');
    assert.ok(r.choices[0].message.content.length > 0);
    const models = await client.models.list();
    assert.equal(models.data[0].id, MODEL);
  });

  it('the probes are open by default and need the key with --protect-probes', async () => {
    assert.equal((await http(server.url + '/health')).status, 200);
    assert.equal((await http(server.url + '/metrics')).status, 200);
    checkUnauthorized(await http(strict.url + '/health'), '/health with --protect-probes');
    checkUnauthorized(await http(strict.url + '/metrics'), '/metrics with --protect-probes');
    assert.equal((await http(strict.url + '/health', { headers: bearer(KEY) })).status, 200);
    checkUnauthorized(await http(strict.url + '/v1/models'), '--api-key on the command line');
  });

  it('answers a preflight from an allowed origin with 204 and the Access-Control fields, without a key', async () => {
    const asked = 'authorization, content-type, x-stainless-os';
    const r = await http(server.url + '/v1/chat/completions', { method: 'OPTIONS', headers: {
      origin: 'http://allowed.test', 'access-control-request-method': 'POST', 'access-control-request-headers': asked } });
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
    assert.equal(r.headers.get('access-control-allow-origin'), 'http://allowed.test');
    assert.match(r.headers.get('access-control-allow-methods'), /\bPOST\b/);
    assert.equal(r.headers.get('access-control-allow-headers'), asked);
    assert.equal(r.headers.get('access-control-max-age'), '600');
    assert.match(r.headers.get('vary'), /Origin/);
  });

  it('gives a disallowed origin no Access-Control-Allow-Origin', async () => {
    const pre = await http(server.url + '/v1/models', { method: 'OPTIONS', headers: {
      origin: 'http://evil.test', 'access-control-request-method': 'GET' } });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), null);
    assert.equal(pre.headers.get('access-control-allow-methods'), null);
    const get = await http(server.url + '/v1/models', { headers: { origin: 'http://evil.test', ...bearer(KEY) } });
    assert.equal(get.status, 200);
    assert.equal(get.headers.get('access-control-allow-origin'), null);
    const none = await http(strict.url + '/v1/models', { headers: { origin: 'http://allowed.test', ...bearer(KEY) } });
    assert.equal(none.headers.get('access-control-allow-origin'), null, 'no --cors-origin: no CORS fields');
  });

  it('an allowed origin sees its answers and their x-request-id, errors included', async () => {
    const ok = await http(server.url + '/v1/models', { headers: { origin: 'http://allowed.test', ...bearer(KEY) } });
    assert.equal(ok.headers.get('access-control-allow-origin'), 'http://allowed.test');
    assert.match(ok.headers.get('access-control-expose-headers'), /x-request-id/);
    const denied = await http(server.url + '/v1/models', { headers: { origin: 'http://allowed.test' } });
    assert.equal(denied.status, 401);
    assert.equal(denied.headers.get('access-control-allow-origin'), 'http://allowed.test');
  });

  it('echoes x-request-id or generates one, and logs one access line per request naming it', async () => {
    const mine = await http(server.url + '/v1/models', { headers: { 'x-request-id': 'req-abc.123', ...bearer(KEY) } });
    assert.equal(mine.headers.get('x-request-id'), 'req-abc.123');
    const line = await logLine(server, /id=req-abc\.123$/);
    assert.match(line, /^ogai \[info\] \[[^\]]+\] access: 127\.0\.0\.1:\d+ "GET \/v1\/models HTTP\/1\.1" 200 \d+B [\d.]+ms id=req-abc\.123$/);
    const generated = await http(server.url + '/health');
    const id = generated.headers.get('x-request-id');
    assert.match(id, /^[0-9a-f]{32}$/);
    assert.notEqual(id, (await http(server.url + '/health')).headers.get('x-request-id'));
    await logLine(server, new RegExp(`"GET /health HTTP/1.1" 200 \\d+B [\\d.]+ms id=${id}$`));
    const bad = await http(server.url + '/health', { headers: { 'x-request-id': 'has space' } });
    assert.match(bad.headers.get('x-request-id'), /^[0-9a-f]{32}$/, 'an unusable id is replaced');
    const denied = await http(server.url + '/v1/models', { headers: { 'x-request-id': 'denied-1' } });
    assert.equal(denied.headers.get('x-request-id'), 'denied-1');
    await logLine(server, /"GET \/v1\/models HTTP\/1\.1" 401 \d+B [\d.]+ms id=denied-1$/);
  });

  it('gives a streamed answer its request id and one access line once it ended', async () => {
    const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: KEY, maxRetries: 0 });
    const { data: stream, response } = await client.chat.completions.create({
      model: MODEL, messages: [{ role: 'user', content: 'Lily' }], max_tokens: 4, stream: true },
      { headers: { 'x-request-id': 'stream-7' } }).withResponse();
    for await (const chunk of stream) void chunk;
    assert.equal(response.headers.get('x-request-id'), 'stream-7');
    await logLine(server, /"POST \/v1\/chat\/completions HTTP\/1\.1" 200 \d+B [\d.]+ms id=stream-7$/);
    assert.equal(accessLines(server).filter((l) => l.endsWith('id=stream-7')).length, 1);
    assert.equal(accessLines(strict).length, 0, '--no-access-log');
  });

  it('a headless Chromium page on another origin calls the API (and is refused where CORS is off)', async (t) => {
    const chromium = ['chromium', 'chromium-browser'].map((c) => `/usr/bin/${c}`).find((c) => fs.existsSync(c));
    if (!chromium) return t.skip('chromium is not installed (Debian package chromium)');
    // Synchronous XHR: the calls (and their preflights) finish before the page's load event, so
    // --dump-dom prints their outcome.
    page.html = `<!doctype html><html><body><pre id="out"></pre><script>
      function call(url, headers, body) {
        const x = new XMLHttpRequest();
        try {
          x.open(body ? 'POST' : 'GET', url, false);
          for (const [k, v] of Object.entries(headers)) x.setRequestHeader(k, v);
          x.send(body || null);
          return x.status + ' ' + (x.getResponseHeader('x-request-id') ? 'id ' : 'no-id ') + x.responseText;
        } catch (e) { return 'blocked ' + e.name; }
      }
      const key = { 'Authorization': 'Bearer ${KEY}', 'Content-Type': 'application/json' };
      const chat = JSON.stringify({ model: '${MODEL}', messages: [{ role: 'user', content: 'Once' }], max_tokens: 3 });
      document.getElementById('out').textContent = [
        'CHAT ' + call('${server.url}/v1/chat/completions', key, chat),
        'NOKEY ' + call('${server.url}/v1/models', {}),
        'OFF ' + call('${strict.url}/v1/models', key),
      ].join('\\n');
    </script></body></html>`;
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai-chromium-'));
    try {
      const { stdout } = await promisify(execFile)(chromium, ['--headless', '--no-sandbox', '--disable-gpu',
        '--no-first-run', `--user-data-dir=${profile}`, '--dump-dom', pageOrigin + '/'], { timeout: 60000 });
      const out = /<pre id="out">([\s\S]*?)<\/pre>/.exec(stdout);
      assert.ok(out, stdout);
      const lines = out[1].replace(/&quot;/g, '"').split('\n');
      assert.match(lines[0], /^CHAT 200 id \{.*"object":"chat\.completion"/);
      assert.match(lines[1], /^NOKEY 401 id \{.*"invalid_api_key"/);
      assert.match(lines[2], /^OFF blocked NetworkError/);
    } finally {
      fs.rmSync(profile, { recursive: true, force: true });
    }
  });
});

describe('--log-format json', () => {
  let server;
  before(async () => { server = await startServer(ogai, stories, ['--log-format', 'json']); });
  after(async () => {
    const end = await stopServer(server, 'SIGTERM');
    assert.equal(end.code, 0, end.stderr);
  });

  it('writes the access line and warnings as one JSON object a line', async () => {
    const r = await http(server.url + '/v1/completions', { method: 'POST', headers: { 'x-request-id': 'json-1' },
      body: JSON.stringify({ model: MODEL, prompt: 'Once', max_tokens: 2, not_a_field: 1 }) });
    assert.equal(r.status, 200, r.text);
    await logLine(server, /"request_id":"json-1"/);
    const records = server.stderr().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    const access = records.find((o) => o.message === 'access' && o.request_id === 'json-1');
    assert.equal(access.level, 'info');
    assert.equal(access.method, 'POST');
    assert.equal(access.path, '/v1/completions');
    assert.equal(access.status, 200);
    assert.equal(access.bytes, Buffer.byteLength(r.text));
    assert.ok(access.duration_ms >= 0);
    assert.match(access.remote, /^127\.0\.0\.1:\d+$/);
    assert.match(access.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const warning = records.find((o) => o.level === 'warn' && /not_a_field/.test(o.message));
    assert.ok(warning, server.stderr());
    assert.match(warning.message, /json-1/);
  });
});
