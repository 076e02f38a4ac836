// `ogai serve`'s HTTP transport under hostile clients, over raw sockets to 127.0.0.1 (issue 12,
// server findings 1-6): bounded request JSON (nested arrays cost no memory), body limits while the
// body arrives (chunked too; an oversized Content-Length refused before its body), slow headers and
// idle connections that cost no thread and time out, a connection limit with a clear answer,
// pipelined and half-closed clients answered, no Range on API responses, two Content-Length
// headers refused, numbers beyond double's range a 400 naming the field.
//   node http_hardening_e2e.cjs OGAI_EXE
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { startServer, stopServer, http, postJson, rssKiB } = require('./server_harness.cjs');
const { connect, reader, parseResponses, exchange, request } = require('./raw_http.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const MODEL = 'stories260k';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const completion = (extra = {}) => JSON.stringify({ model: MODEL, prompt: 'Once upon a time', max_tokens: 5, ...extra });
const portOf = (server) => Number(new URL(server.url).port);

// GET /health on a fresh connection; resolves with its latency in ms (rejects after `ms`).
async function healthLatency(port, ms = 5000) {
  const start = performance.now();
  const { responses } = await exchange(port, request('GET', '/health', { headers: { Connection: 'close' } }), { ms });
  assert.equal(responses[0]?.status, 200, '/health was not answered');
  return performance.now() - start;
}

describe('ogai serve transport: framing', () => {
  let server;
  let port;
  before(async () => {
    server = await startServer(ogai, stories, ['--max-concurrent', '2', '--queue', '8', '--max-body-bytes', '65536']);
    port = portOf(server);
  });
  after(async () => {
    const end = await stopServer(server);
    assert.equal(end.code, 0, end.stderr);
  });

  it('answers pipelined requests, all of them, in order', async () => {
    const bytes = request('GET', '/health') + request('POST', '/v1/completions', { body: completion() }) +
                  request('GET', '/v1/models') + request('GET', '/nowhere');
    const { responses } = await exchange(port, bytes, { count: 4 });
    assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 404]);
    assert.equal(JSON.parse(responses[0].body).status, 'ok');
    assert.equal(JSON.parse(responses[1].body).object, 'text_completion');
    assert.equal(JSON.parse(responses[2].body).object, 'list');
    assert.equal(JSON.parse(responses[3].body).error.code, 'not_found');
  });

  it('answers a client that half-closes after its requests', async () => {
    const one = await exchange(port, request('POST', '/v1/completions', { body: completion() }), { halfClose: true });
    assert.equal(one.responses.length, 1, 'no answer after the client half-closed');
    assert.equal(one.responses[0].status, 200);
    assert.ok(JSON.parse(one.responses[0].body).choices[0].text.length > 0);
    assert.notEqual(one.closed, null, 'the server did not close its side after answering');
    const stream = completion({ stream: true });
    const two = await exchange(port, request('POST', '/v1/completions', { body: stream }) + request('GET', '/health'),
                               { halfClose: true, count: 2 });
    assert.deepEqual(two.responses.map((r) => r.status), [200, 200]);
    assert.match(two.responses[0].body, /data: \[DONE\]/);
  });

  it('does not apply Range to API responses', async () => {
    const range = { Range: 'bytes=0-,0-,0-,0-', 'Content-Type': 'application/json' };
    const body = completion();
    const { responses } = await exchange(port, request('POST', '/v1/completions', {
      body, headers: { ...range, 'Content-Length': Buffer.byteLength(body) } }));
    assert.equal(responses[0].status, 200);
    assert.equal(responses[0].headers['content-range'], undefined);
    assert.match(responses[0].headers['content-type'], /^application\/json/);
    assert.equal(JSON.parse(responses[0].body).object, 'text_completion');
    const models = await exchange(port, request('GET', '/v1/models', { headers: { Range: 'bytes=0-1' } }));
    assert.equal(models.responses[0].status, 200);
    assert.equal(JSON.parse(models.responses[0].body).object, 'list');
  });

  it('refuses two different Content-Length headers, and Content-Length with chunked', async () => {
    const body = completion();
    const two = await exchange(port, request('POST', '/v1/completions', { body, headers: {
      'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'content-length': 5 } }));
    assert.equal(two.responses[0]?.status, 400, 'two different Content-Length headers were accepted');
    assert.equal(JSON.parse(two.responses[0].body).error.type, 'invalid_request_error');
    const both = await exchange(port, request('POST', '/v1/completions', { body: `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      headers: { 'Content-Type': 'application/json', 'Content-Length': 4, 'Transfer-Encoding': 'chunked' } }));
    assert.equal(both.responses[0]?.status, 400, 'Content-Length with chunked was accepted');
  });

  it('answers Expect: 100-continue before the body, and streams to HTTP/1.0 clients without chunking', async () => {
    const body = completion();
    const socket = await connect(port);
    const r = reader(socket);
    socket.write(`POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
                 `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`);
    await r.waitFor((d) => d.toString().includes('\r\n\r\n'), 5000);
    assert.match(r.received().toString(), /^HTTP\/1\.1 100 Continue\r\n\r\n/, 'no 100 Continue before the body');
    socket.write(body);
    await r.waitFor((d) => parseResponses(d).length > 0, 10000);
    socket.destroy();
    assert.equal(parseResponses(r.received())[0]?.status, 200);
    const old = await connect(port);
    const o = reader(old);
    old.write(request('POST', '/v1/completions', { body: completion({ stream: true }) }).replace('HTTP/1.1', 'HTTP/1.0'));
    await o.waitFor(() => false, 10000);  // until the server closes
    old.destroy();
    const text = o.received().toString();
    assert.notEqual(o.closed(), null, 'an HTTP/1.0 stream must end with the connection');
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.doesNotMatch(text.slice(0, text.indexOf('\r\n\r\n')), /transfer-encoding|content-length/i);
    assert.match(text, /\r\n\r\ndata: \{[\s\S]*data: \[DONE\]\n\n$/);
  });

  it('answers 431 to a header over 16 KiB', async () => {
    const { responses } = await exchange(port, request('GET', '/health', { headers: { 'X-Big': 'a'.repeat(20000) } }));
    assert.equal(responses[0]?.status, 431);
    assert.equal(JSON.parse(responses[0].body).error.code, 'request_header_too_large');
  });

  it('refuses a Content-Length over the limit before the body is sent', async () => {
    const start = performance.now();
    const { responses } = await exchange(port, request('POST', '/v1/completions', {
      headers: { 'Content-Type': 'application/json', 'Content-Length': 1000000000 } }), { ms: 5000 });
    assert.equal(responses[0]?.status, 413, 'no 413 while the announced body was not sent');
    assert.equal(JSON.parse(responses[0].body).error.code, 'request_too_large');
    assert.ok(performance.now() - start < 2000, 'the 413 waited for the body');
  });

  it('refuses a chunked body over the limit while it arrives', async () => {
    const socket = await connect(port);
    const r = reader(socket);
    socket.write('POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
    const chunk = `4000\r\n${'['.repeat(0x4000)}\r\n`;
    let sent = 0;
    const limit = 64 << 20;  // a bounded attempt: the old server read all of it
    while (sent < limit && parseResponses(r.received()).length === 0 && r.closed() === null && !socket.destroyed) {
      sent += 0x4000;
      if (!socket.write(chunk)) await Promise.race([new Promise((res) => socket.once('drain', res)), r.waitFor((d) => d.length > 0, 2000)]);
      // Let the answer's 'data' event run: without this the loop can keep writing into a server
      // that already answered and lingers, discarding (a loaded ci once counted 18 MB this way).
      await new Promise((res) => setImmediate(res));
    }
    await r.waitFor((d) => parseResponses(d).length > 0, 5000);
    socket.destroy();
    const [res] = parseResponses(r.received());
    assert.equal(res?.status, 413, `no 413 after ${sent} chunked bytes`);
    assert.equal(JSON.parse(res.body).error.code, 'request_too_large');
    assert.ok(sent < (16 << 20), `the server read ${sent} bytes of a body limited to 65536`);
  });

  it('answers numbers beyond double\'s range with a 400 naming the field', async () => {
    const url = server.url + '/v1/completions';
    const cases = [
      ['temperature', `{"model":"${MODEL}","prompt":"x","temperature":1e999}`],
      ['top_p', `{"model":"${MODEL}","prompt":"x","top_p":-1e999}`],
      ['max_tokens', `{"model":"${MODEL}","prompt":"x","max_tokens":${'9'.repeat(10000)}}`],
      ['logit_bias', `{"model":"${MODEL}","prompt":"x","logit_bias":{"5":1e400}}`],
    ];
    for (const [param, body] of cases) {
      const r = await postJson(url, body);
      assert.equal(r.status, 400, `${param}: ${r.status} ${r.text.slice(0, 200)}`);
      assert.equal(r.json.error.param, param);
      assert.match(r.json.error.message, /out of the range/);
    }
  });
});

describe('ogai serve transport: request JSON costs bounded memory', () => {
  it('refuses deeply nested and very wide arrays without building them', async (t) => {
    const server = await startServer(ogai, stories, ['--max-concurrent', '1', '--queue', '4']);  // the default 8 MB body limit
    try {
      const url = server.url + '/v1/completions';
      const depth = 3_900_000;  // 7.8 MB of nesting, under the limit
      const nested = `{"model":"${MODEL}","prompt":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const wide = `{"model":"${MODEL}","prompt":"x","stop":[${'[],'.repeat(2_600_000)}[]]}`;
      await postJson(url, completion());  // warm-up
      const before = rssKiB(server.pid);
      const answers = await Promise.all([nested, wide, nested, wide, nested, wide].map((b) => postJson(url, b)));
      const after = rssKiB(server.pid);
      t.diagnostic(`RSS ${before} KiB -> ${after} KiB over 6 bodies of 7.8 MB`);
      for (const [i, r] of answers.entries()) {
        assert.equal(r.status, 400, `${i}: ${r.text.slice(0, 200)}`);
        assert.equal(r.json.error.param, i % 2 ? 'stop' : 'prompt');
      }
      assert.ok(after - before < 100 * 1024, `RSS grew by ${after - before} KiB`);
      assert.equal((await postJson(url, completion())).status, 200);
    } finally {
      assert.equal((await stopServer(server)).code, 0);
    }
  });
});

describe('ogai serve: answered requests leave nothing behind', () => {
  it('keeps RSS flat over 800 whole, streamed and aborted requests', async (t) => {
    const server = await startServer(ogai, stories, ['--max-concurrent', '4', '--queue', '64', '--prefix-cache-mib', '0']);
    try {
      const url = server.url + '/v1/completions';
      const one = async (i) => {
        if (i % 3 === 0) return postJson(url, completion({ max_tokens: 4, temperature: 0.8, seed: i }));
        const controller = new AbortController();
        const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, signal: controller.signal,
                                     body: completion({ max_tokens: i % 3 === 1 ? 4 : 64, stream: true, temperature: 0.8, seed: i }) });
        if (i % 3 === 1) return r.text();
        for await (const _ of r.body) { controller.abort(); break; }  // aborted after its first chunk
        return null;
      };
      const round = (k) => Promise.all(Array.from({ length: 16 }, (_, i) => one(k * 16 + i).catch(() => null)));
      for (let k = 0; k < 10; k++) await round(k);  // warm-up
      const before = rssKiB(server.pid);
      for (let k = 10; k < 60; k++) await round(k);
      const after = rssKiB(server.pid);
      t.diagnostic(`RSS ${before} KiB -> ${after} KiB over 800 requests`);
      assert.ok(after - before < 4096, `RSS grew by ${after - before} KiB over 800 requests`);
    } finally {
      assert.equal((await stopServer(server)).code, 0);
    }
  });
});

describe('ogai serve transport: slow, idle and too many clients', () => {
  let server;
  let port;
  before(async () => {
    // Few workers (the old server had a thread per connection: max-concurrent + queue + 8 = 12).
    server = await startServer(ogai, stories, ['--max-concurrent', '2', '--queue', '2', '--header-timeout', '2', '--idle-timeout', '1']);
    port = portOf(server);
  });
  after(async () => {
    const end = await stopServer(server);
    assert.equal(end.code, 0, end.stderr);
  });

  it('keeps answering /health while 90 clients send their headers a byte at a time, and closes them at the header deadline', async (t) => {
    const slow = await Promise.all(Array.from({ length: 90 }, () => connect(port)));
    const readers = slow.map(reader);
    const header = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200);
    let stop = false;
    const trickle = (async () => {
      for (let i = 0; i < header.length && !stop; i++) {
        for (const s of slow) if (!s.destroyed) s.write(header[i]);
        await sleep(50);
      }
    })();
    await sleep(300);
    const latencies = [];
    for (let i = 0; i < 5; i++) latencies.push(await healthLatency(port));
    t.diagnostic(`/health latencies under 90 slow clients: ${latencies.map((l) => l.toFixed(0)).join(', ')} ms`);
    for (const l of latencies) assert.ok(l < 1000, `/health took ${l} ms`);
    await Promise.all(readers.map((r) => r.waitFor(() => false, 5000)));
    stop = true;
    await trickle;
    const closed = readers.map((r) => r.closed());
    slow.forEach((s) => s.destroy());
    assert.ok(closed.every((c) => c !== null && c < 4500), `not all slow clients were cut at the 2 s header deadline: ${closed}`);
  });

  it('answers 408 and closes new connections that send nothing, and 100 of them block nobody', async () => {
    // A new connection waits for its first request as long as the longer of --idle-timeout and
    // --header-timeout (2 s here), then gets a 408 (a slow client reads it rather than a reset).
    const idle = await Promise.all(Array.from({ length: 100 }, () => connect(port)));
    const readers = idle.map(reader);
    assert.ok(await healthLatency(port) < 1000);
    await Promise.all(readers.map((r) => r.waitFor(() => false, 5000)));
    const closed = readers.map((r) => r.closed());
    idle.forEach((s) => s.destroy());
    assert.ok(closed.every((c) => c !== null && c > 1500 && c < 4500), `new idle connections not closed after 2 s: ${closed}`);
    for (const r of readers) {
      const [answer] = parseResponses(r.received());
      assert.equal(answer?.status, 408, 'a new connection that sent nothing was closed without a 408');
      assert.equal(answer.headers.connection, 'close');
      assert.match(JSON.parse(answer.body).error.message, /--header-timeout/);
    }
    // A keep-alive connection is closed the same way after its answer.
    const socket = await connect(port);
    const r = reader(socket);
    socket.write(request('GET', '/health'));
    await r.waitFor(() => false, 4000);
    socket.destroy();
    const [res] = parseResponses(r.received());
    assert.equal(res?.status, 200);
    assert.equal(res.headers['keep-alive'], 'timeout=1, max=99', 'the idle timeout is not announced');
    assert.ok(r.closed() !== null && r.closed() < 3500, 'an idle keep-alive connection stayed open');
  });

  it('answers 503 beyond --max-connections (probes from the reserve) and serves again once connections close', async () => {
    const limited = await startServer(ogai, stories, ['--max-connections', '8']);
    try {
      const lport = portOf(limited);
      // Eight connections in the middle of a body: not evictable (an idle or header-incomplete one would be).
      const held = await Promise.all(Array.from({ length: 8 }, () => connect(lport)));
      const partial = 'POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
                      'Content-Length: 100\r\n\r\n{"model"';
      held.forEach((s) => s.write(partial));
      await sleep(200);  // accepted by the server, not just by the kernel
      const { responses } = await exchange(lport, request('GET', '/v1/models'));
      assert.equal(responses[0]?.status, 503, 'no answer beyond the connection limit');
      const error = JSON.parse(responses[0].body).error;
      assert.equal(error.code, 'too_many_connections');
      assert.match(error.message, /8 connections/);
      assert.equal(responses[0].headers['retry-after'], '1');
      const probe = await exchange(lport, request('GET', '/health'));
      assert.equal(probe.responses[0]?.status, 200, '/health is not answered from the reserve');
      held.forEach((s) => s.destroy());
      await sleep(200);
      assert.ok(await healthLatency(lport) < 1000);
    } finally {
      assert.equal((await stopServer(limited)).code, 0);
    }
  });
});
