// `ogai serve`'s transport against RFC 9112's MUSTs and hostile connection patterns (issue 28,
// findings 4-7), over raw sockets to 127.0.0.1: absolute-form targets routed by path; Host
// missing or doubled, a second Authorization, transfer codings other than a final chunked,
// Content-Encoding, a body shorter than its Content-Length (408), a request cut by shutdown (503);
// an empty --api-key refused and the startup line's auth mode; error bodies that quote a bounded
// prefix; probes and requests answered while 1,000 reconnecting slow-header clients of one peer
// hold every place; --max-connections sized to the descriptor limit.
//   node http_rfc_e2e.cjs OGAI_EXE
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const { startServer, stopServer, http, postJson } = require('./server_harness.cjs');
const { connect, reader, parseResponses, exchange, request } = require('./raw_http.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const MODEL = 'stories260k';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const completion = (extra = {}) => JSON.stringify({ model: MODEL, prompt: 'Once upon a time', max_tokens: 3, ...extra });
const portOf = (server) => Number(new URL(server.url).port);

// Raw request bytes with exactly the header lines given (no Host added).
function rawHead(requestLine, lines, body = '') {
  return requestLine + '\r\n' + lines.map((l) => l + '\r\n').join('') + '\r\n' + body;
}

async function statusOf(port, bytes, ms = 5000) {
  const { responses } = await exchange(port, bytes, { ms });
  return responses[0];
}

describe('ogai serve: RFC 9112 MUSTs', () => {
  let server;
  let port;
  before(async () => {
    server = await startServer(ogai, stories, ['--body-timeout', '1']);
    port = portOf(server);
  });
  after(async () => {
    const end = await stopServer(server);
    assert.equal(end.code, 0, end.stderr);
  });

  it('routes an absolute-form target by its path', async () => {
    const body = completion();
    const r = await statusOf(port, rawHead(`POST http://127.0.0.1:${port}/v1/completions HTTP/1.1`,
      [`Host: 127.0.0.1:${port}`, 'Content-Type: application/json', `Content-Length: ${body.length}`], body));
    assert.equal(r?.status, 200);
    assert.equal(JSON.parse(r.body).object, 'text_completion');
    const health = await statusOf(port, rawHead('GET http://localhost/health?x=1 HTTP/1.1', ['Host: localhost']));
    assert.equal(health?.status, 200);
  });

  it('refuses a missing, doubled or malformed Host with 400 (HTTP/1.0 needs none)', async () => {
    assert.equal((await statusOf(port, rawHead('GET /health HTTP/1.1', [])))?.status, 400);
    assert.equal((await statusOf(port, rawHead('GET /health HTTP/1.1', ['Host: a', 'Host: b'])))?.status, 400);
    assert.equal((await statusOf(port, rawHead('GET /health HTTP/1.1', ['Host: a b/c'])))?.status, 400);
    assert.equal((await statusOf(port, rawHead('GET /health HTTP/1.0', [])))?.status, 200);
  });

  it('refuses a second Authorization field with 400', async () => {
    const r = await statusOf(port, rawHead('GET /v1/models HTTP/1.1', ['Host: x', 'Authorization: Bearer a',
                                                                       'Authorization: Bearer b']));
    assert.equal(r?.status, 400);
    assert.match(JSON.parse(r.body).error.message, /Authorization/);
  });

  it('answers 501 to transfer codings other than one final chunked', async () => {
    const chunked = '5\r\nhello\r\n0\r\n\r\n';
    for (const lines of [['Transfer-Encoding: gzip, chunked'], ['Transfer-Encoding: identity, chunked'],
                         ['Transfer-Encoding: identity', 'Transfer-Encoding: chunked']]) {
      const r = await statusOf(port, rawHead('POST /v1/completions HTTP/1.1', ['Host: x', ...lines], chunked));
      assert.equal(r?.status, 501, lines.join(' | '));
    }
  });

  it('answers 415 to a Content-Encoding it does not decode', async () => {
    const body = completion();
    const r = await statusOf(port, rawHead('POST /v1/completions HTTP/1.1', ['Host: x', 'Content-Encoding: gzip',
      'Content-Type: application/json', `Content-Length: ${body.length}`], body));
    assert.equal(r?.status, 415);
  });

  it('answers 408 when a body stays shorter than its Content-Length', async () => {
    const start = performance.now();
    const r = await statusOf(port, rawHead('POST /v1/completions HTTP/1.1', ['Host: x', 'Content-Type: application/json',
      'Content-Length: 100'], '{"model"'), 5000);
    assert.equal(r?.status, 408);
    assert.match(JSON.parse(r.body).error.message, /--body-timeout/);
    assert.ok(performance.now() - start < 4000);
  });

  it('answers 503 to a request still arriving when the server stops', async () => {
    const stopping = await startServer(ogai, stories, ['--drain-timeout', '0']);
    const socket = await connect(portOf(stopping));
    const r = reader(socket);
    socket.write(rawHead('POST /v1/completions HTTP/1.1', ['Host: x', 'Content-Length: 100'], '{"model"'));
    await sleep(200);
    const end = await stopServer(stopping, 'SIGTERM');
    await r.waitFor((d) => parseResponses(d).length === 1, 3000);
    socket.destroy();
    assert.equal(end.code, 0);
    assert.equal(parseResponses(r.received())[0]?.status, 503, 'the request was reset instead of answered');
  });
});

describe('ogai serve: API key and error bodies', () => {
  it('refuses an empty --api-key or OGAI_API_KEY (exit 2) and names the auth mode on startup', async () => {
    const flag = spawnSync(ogai, ['serve', stories, '--port', '0', '--api-key', ''], { encoding: 'utf8', timeout: 20000 });
    assert.equal(flag.status, 2, flag.stderr);
    assert.match(flag.stderr, /--api-key/);
    const env = spawnSync(ogai, ['serve', stories, '--port', '0'],
                          { encoding: 'utf8', timeout: 20000, env: { ...process.env, OGAI_API_KEY: '' } });
    assert.equal(env.status, 2, env.stderr);
    assert.match(env.stderr, /OGAI_API_KEY/);
    const open = await startServer(ogai, stories, []);
    assert.match(open.stderr(), /auth: none/);
    await stopServer(open);
    const keyed = await startServer(ogai, stories, ['--api-key', 'k']);
    assert.match(keyed.stderr(), /auth: api key required/);
    await stopServer(keyed);
  });

  it('quotes at most a bounded prefix of an offending value', async () => {
    const server = await startServer(ogai, stories, []);
    try {
      const huge = 'm'.repeat(1 << 20);
      const model = await postJson(server.url + '/v1/completions', { model: huge, prompt: 'x', max_tokens: 1 });
      assert.equal(model.status, 404);
      assert.ok(model.text.length < 4096, `a ${model.text.length}-byte error body`);
      assert.match(model.json.error.message, /1048576 bytes/);
      const tool = await postJson(server.url + '/v1/chat/completions', {
        model: MODEL, messages: [{ role: 'user', content: 'x' }], max_tokens: 1,
        tools: [{ type: 'function', function: { name: 'n'.repeat(1 << 19), parameters: { type: 'object' } } }] });
      assert.equal(tool.status, 400);
      assert.ok(tool.text.length < 4096, `a ${tool.text.length}-byte error body`);
    } finally {
      await stopServer(server);
    }
  });
});

describe('ogai serve: one peer cannot take every connection', () => {
  // --max-connections defaults to the descriptor limit (its hard limit less 256), and the soft
  // limit is raised to fit: under a soft limit of 1024 and a hard one of 2048 (the old default,
  // 512 connections, left the soft limit at 1024) the process may open 2048 descriptors.
  it('sizes --max-connections to the descriptor limit and raises the soft limit to fit', async () => {
    const proc = spawn('bash', ['-c', 'ulimit -Sn 1024 && ulimit -Hn 2048 && exec "$0" "$@"', ogai, 'serve', stories,
                                '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise((resolve) => proc.on('exit', resolve));
    try {
      const start = performance.now();
      while (!/listening on (http:\/\/\S+?) /.test(stderr) && proc.exitCode === null && performance.now() - start < 30000)
        await sleep(20);
      const url = /listening on (http:\/\/\S+?) /.exec(stderr)?.[1];
      assert.ok(url, `ogai serve did not start under ulimit -Hn 2048 (is the hard limit lower?): ${stderr}`);
      const metrics = (await http(url + '/metrics')).text;
      assert.match(metrics, /^process_max_fds 2048$/m, 'the soft descriptor limit was not raised to the hard one');
    } finally {
      proc.kill('SIGTERM');
      await exited;
    }
  });

  // 1,000 clients from 127.0.0.1 (a process of their own) that reconnect at once when closed, over
  // a cap of 64 connections (8 per peer): each probe is answered within 2 s, each completion too.
  it('answers probes and completions while 1,000 reconnecting slow-header clients hold every place', async (t) => {
    const server = await startServer(ogai, stories, ['--max-connections', '64', '--header-timeout', '10']);
    const port = portOf(server);
    const flood = spawn(process.execPath, [path.join(__dirname, 'slow_header_flood.cjs'), String(port), '1000', '60000'],
                        { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    flood.stdout.on('data', (d) => { out += d; });
    const ended = new Promise((resolve) => flood.on('exit', resolve));
    try {
      const start = performance.now();
      while (!out.includes('flooding') && flood.exitCode === null && performance.now() - start < 20000) await sleep(20);
      assert.ok(out.includes('flooding'), `the flood did not start: ${out}`);
      await sleep(500);  // the clients reconnecting
      const probes = [];
      for (let i = 0; i < 12; i++) {
        const begin = performance.now();
        const r = await statusOf(port, request('GET', i % 3 === 2 ? '/metrics' : '/health',
                                               { headers: { Connection: 'close' } }), 2000);
        probes.push({ status: r?.status, ms: performance.now() - begin });
      }
      const completions = await Promise.all(Array.from({ length: 5 }, () =>
        statusOf(port, request('POST', '/v1/completions', { body: completion() }), 10000)));
      assert.equal(flood.exitCode, null, 'the flood ended before the probes did');
      flood.kill('SIGTERM');
      await ended;
      t.diagnostic(`${out.trim().split('\n').pop()} slow connections; probes (status ms): ` +
                   probes.map((p) => `${p.status} ${p.ms.toFixed(0)}`).join(', '));
      for (const p of probes) assert.equal(p.status, 200, 'a probe was not answered within 2 s');
      for (const c of completions) assert.equal(c?.status, 200, 'a completion was not answered');
    } finally {
      flood.kill('SIGKILL');
      await stopServer(server);
    }
  });
});
