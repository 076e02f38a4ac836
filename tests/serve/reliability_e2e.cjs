// `ogai serve` under clients that leave or misbehave (issue 28): a client that goes away while
// its request is queued, prefilling or decoding (whole or streamed, FIN or RST, raw sockets and
// the `openai` client's abort) frees its queue place and engine row at once and counts as
// cancelled, so new requests are admitted instead of 429; a half-closed client is still answered.
// Grammar compilation runs on a pool of its own under a size and time budget (400 naming the
// flag, cached by schema), so hostile wide-object schemas in flight do not stall a running
// stream or a normal completion (a ratio against the same run without them). Per-field budgets
// refuse a hostile stop list before it costs memory, and RSS returns after a burst of them.
//   node reliability_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer, http, postJson, metric, rssKiB } = require('./server_harness.cjs');
const { connect, reader, parseResponses, request } = require('./raw_http.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const MODEL = 'stories260k';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const long = (extra = {}) => ({ model: MODEL, prompt: 'Once upon a time', max_tokens: 480, ignore_eos: true, ...extra });
const portOf = (server) => Number(new URL(server.url).port);

async function metrics(server) {
  return (await http(server.url + '/metrics')).text;
}

// Polls every 10 ms until condition() holds; returns the ms it took (fails after `ms`).
async function within(what, condition, ms = 5000) {
  const start = performance.now();
  while (performance.now() - start < ms) {
    if (await condition()) return performance.now() - start;
    await sleep(10);
  }
  assert.fail(`timed out waiting for ${what}`);
}

const admitted = async (server) => {
  const text = await metrics(server);
  return metric(text, 'ogai_requests_in_flight') + metric(text, 'ogai_queue_depth');
};
const cancelled = async (server) => metric(await metrics(server), 'ogai_generations_total{finish_reason="cancelled"}');

// A raw POST /v1/completions left waiting on its own connection.
async function rawRequest(port, body) {
  const socket = await connect(port);
  const r = reader(socket);
  socket.write(request('POST', '/v1/completions', { body: JSON.stringify(body) }));
  return { socket, r };
}

// One request runs (a long stream read to its end by `occupant.done`) and four wait behind it.
async function occupy(server, client) {
  const stream = await client.completions.create(long({ stream: true }));
  const done = (async () => { for await (const _ of stream); })();
  return { done };
}

describe('ogai serve: clients that leave free what they hold', () => {
  let server;
  let client;
  before(async () => {
    server = await startServer(ogai, stories, ['--max-concurrent', '1', '--queue', '4']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    const end = await stopServer(server);
    assert.equal(end.code, 0, end.stderr);
  });

  for (const [shape, stream] of [['whole', false], ['streamed', true]]) {
    it(`frees the places of four queued ${shape} requests whose clients close or reset`, async (t) => {
      await within('an idle server', async () => (await admitted(server)) === 0, 20000);
      const before = await cancelled(server);
      const occupant = await occupy(server, client);
      const port = portOf(server);
      const queued = await Promise.all(Array.from({ length: 4 }, () => rawRequest(port, long({ stream }))));
      await within('four queued requests', async () => (await admitted(server)) === 5);
      const left = performance.now();
      queued.forEach(({ socket }, i) => (i % 2 ? socket.resetAndDestroy() : socket.destroy()));  // RST, FIN
      const freed = await within('the queue places freed', async () => (await admitted(server)) <= 1);
      t.diagnostic(`queue places freed ${freed.toFixed(0)} ms after the clients left`);
      assert.equal(await cancelled(server), before + 4, 'not counted as cancelled');
      // Four new clients are admitted, not refused.
      const again = await Promise.all(Array.from({ length: 4 }, () => rawRequest(port, long({ stream, max_tokens: 8 }))));
      await within('four new requests admitted', async () => (await admitted(server)) >= 4 ||
                   again.every(({ r }) => parseResponses(r.received()).length === 1));
      for (const { r } of again) {
        const [answer] = parseResponses(r.received());
        assert.notEqual(answer?.status, 429, 'a new request was refused while the leavers held places');
      }
      t.diagnostic(`leavers freed their places within ${(performance.now() - left).toFixed(0)} ms`);
      for (const { socket } of again) socket.destroy();
      await occupant.done;
    });
  }

  it('cancels a request that is decoding when its client resets (whole answer)', async () => {
    await within('an idle server', async () => (await admitted(server)) === 0, 20000);
    const before = await cancelled(server);
    const generatedBefore = metric(await metrics(server), 'ogai_generated_tokens_total');
    const { socket } = await rawRequest(portOf(server), long());
    await within('the request running', async () => metric(await metrics(server), 'ogai_requests_in_flight') === 1);
    socket.destroy();
    await within('the cancelled generation', async () => (await cancelled(server)) === before + 1, 2000);
    const generated = metric(await metrics(server), 'ogai_generated_tokens_total') - generatedBefore;
    assert.ok(generated < 480, `the abandoned request was generated to its end (${generated} tokens)`);
  });

  it('frees the places of queued openai-client requests that abort', async () => {
    await within('an idle server', async () => (await admitted(server)) === 0, 20000);
    const before = await cancelled(server);
    const occupant = await occupy(server, client);
    const controllers = Array.from({ length: 4 }, () => new AbortController());
    const calls = controllers.map((c, i) => client.completions.create(long({ stream: i % 2 === 0 }), { signal: c.signal })
      .then(() => 'answered', (e) => e));
    await within('four queued requests', async () => (await admitted(server)) === 5);
    for (const c of controllers) c.abort();
    for (const outcome of await Promise.all(calls)) assert.ok(outcome instanceof Error, 'an aborted call was answered');
    await within('the queue places freed', async () => (await admitted(server)) <= 1, 2000);
    assert.equal(await cancelled(server), before + 4);
    const fresh = Array.from({ length: 4 }, () => client.completions.create(long({ max_tokens: 4 })));
    for (const r of await Promise.allSettled(fresh))
      assert.equal(r.status, 'fulfilled', `a new request was refused: ${r.reason}`);
    await occupant.done;
  });

  it('still answers a client that half-closes after a queued request', async () => {
    await within('an idle server', async () => (await admitted(server)) === 0, 20000);
    const occupant = await occupy(server, client);
    const { socket, r } = await rawRequest(portOf(server), long({ max_tokens: 4 }));
    socket.end();  // FIN, but still reading
    await r.waitFor((d) => parseResponses(d).length === 1, 20000);
    const [answer] = parseResponses(r.received());
    assert.equal(answer?.status, 200, 'a half-closed client lost its answer');
    assert.equal(JSON.parse(answer.body).usage.completion_tokens, 4);
    socket.destroy();
    await occupant.done;
  });
});

// A JSON Schema of one object with `n` integer properties: compiles in superlinear time.
const wideSchema = (n) => ({ type: 'object', properties: Object.fromEntries(
  Array.from({ length: n }, (_, i) => [`property_${i}`, { type: 'integer' }])) });
// The same with every property required: one long sequence, no ambiguity, slow to compile.
const requiredWide = (n) => ({ ...wideSchema(n), required: Array.from({ length: n }, (_, i) => `property_${i}`) });
const constrained = (schema, extra = {}) => ({ model: MODEL, prompt: 'Once upon a time', max_tokens: 4,
  response_format: { type: 'json_schema', json_schema: { name: 'wide', schema } }, ...extra });

// A stream of `tokens` tokens read to its end: its longest gap between chunks, in ms.
async function longestGap(client, tokens) {
  const stream = await client.completions.create(long({ max_tokens: tokens, stream: true }));
  let last = performance.now();
  let gap = 0;
  for await (const _ of stream) {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }
  return gap;
}

async function completionMs(server) {
  const start = performance.now();
  const r = await postJson(server.url + '/v1/completions', { model: MODEL, prompt: 'Once', max_tokens: 8 });
  assert.equal(r.status, 200, r.text);
  return performance.now() - start;
}

describe('ogai serve: clients that abort mid-stream', () => {
  // A client that goes away while a streamed chunk is being written closed the connection under
  // that write (the write's buffer freed, its completion run on an empty queue): the server died
  // within seconds of such aborts (a balancer's clients do this all the time).
  it('survives 16 clients aborting streams at random moments, then answers and drains', async () => {
    const server = await startServer(ogai, stories, ['--max-concurrent', '16', '--queue', '64']);
    try {
      let aborted = 0;
      const until = Date.now() + 3000;
      const client = async (c) => {
        while (Date.now() < until) {
          const ac = new AbortController();
          const timer = setTimeout(() => { ac.abort(); aborted++; }, Math.random() * 200);
          try {
            const r = await fetch(server.url + '/v1/chat/completions', {
              method: 'POST', signal: ac.signal, headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ model: MODEL, stream: true, max_tokens: 60, n: c % 4 === 0 ? 2 : 1,
                                     messages: [{ role: 'user', content: `Tell story ${c}` }] }) });
            await r.text();
          } catch (e) {
            if (e.name !== 'AbortError') throw e;
          } finally {
            clearTimeout(timer);
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, (_, c) => client(c)));
      assert.ok(aborted > 50, `only ${aborted} aborts`);
      assert.equal(server.proc.signalCode, null, 'the server died');
      assert.equal((await http(server.url + '/health')).status, 200);
      const r = await postJson(server.url + '/v1/completions', { model: MODEL, prompt: 'Once', max_tokens: 4 });
      assert.equal(r.status, 200, r.text);
    } finally {
      const end = await stopServer(server);
      assert.equal(end.code, 0, end.stderr.slice(-2000));
    }
  });
});

describe('ogai serve: grammar compilation cannot stall other requests', () => {
  it('refuses a schema over --max-grammar-bytes or --grammar-timeout with a 400 naming it, cached', async (t) => {
    const server = await startServer(ogai, stories, ['--max-grammar-bytes', '800000', '--grammar-timeout', '0.2']);
    try {
      const big = await postJson(server.url + '/v1/completions', constrained(wideSchema(30000)));
      assert.equal(big.status, 400);
      assert.match(big.json.error.message, /--max-grammar-bytes/);
      const hostile = constrained(requiredWide(12000));  // ~2 s to compile on the dev machine
      let start = performance.now();
      const slow = await postJson(server.url + '/v1/completions', hostile);
      const first = performance.now() - start;
      assert.equal(slow.status, 400, slow.text);
      assert.match(slow.json.error.message, /--grammar-timeout/);
      start = performance.now();
      const again = await postJson(server.url + '/v1/completions', hostile);
      const second = performance.now() - start;
      t.diagnostic(`over the time budget: ${first.toFixed(0)} ms, then ${second.toFixed(0)} ms from the cache`);
      assert.equal(again.status, 400);
      assert.ok(first < 3000, `the budget of 0.2 s took ${first} ms to fail`);
      assert.ok(second < first, 'the refused schema was compiled again');  // parsing the body dominates the cached answer
      const small = await postJson(server.url + '/v1/completions', constrained(wideSchema(3)));
      assert.equal(small.status, 200, small.text);
    } finally {
      await stopServer(server);
    }
  });

  // A compilation whose client left is dropped (queued) or stopped (running, when it polls its
  // budget): four hostile schemas whose clients reset, two compiling and two queued, leave the two
  // compile threads to the next request at once.
  it('drops the compilations of clients that left', async (t) => {
    const server = await startServer(ogai, stories, ['--grammar-timeout', '60']);
    try {
      const constrainedMs = async (n) => {
        const start = performance.now();
        const r = await postJson(server.url + '/v1/completions', constrained(wideSchema(n)));
        assert.equal(r.status, 200, r.text);
        return performance.now() - start;
      };
      await constrainedMs(2);  // warm-up
      const alone = await constrainedMs(3);
      const port = portOf(server);
      const leavers = await Promise.all(Array.from({ length: 4 }, (_, i) => rawRequest(port, constrained(requiredWide(20000 + i)))));
      await sleep(300);  // two compiling, two queued
      for (const { socket } of leavers) socket.resetAndDestroy();
      const after = await constrainedMs(4);
      t.diagnostic(`a small schema ${alone.toFixed(0)} ms alone, ${after.toFixed(0)} ms after four hostile ones were left`);
      assert.ok(after < Math.max(8 * alone, 1500), `the compilations of clients that left went on: ${after} ms (alone ${alone} ms)`);
    } finally {
      await stopServer(server);
    }
  });

  it('keeps a stream\'s longest gap and a completion\'s time while four hostile schemas compile', async (t) => {
    const server = await startServer(ogai, stories, ['--max-concurrent', '4', '--grammar-timeout', '60']);
    const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
    try {
      await longestGap(client, 64);  // warm-up
      const baseGap = await longestGap(client, 200);
      const baseMs = await completionMs(server);
      const hostileStart = performance.now();
      const hostile = Array.from({ length: 4 }, (_, i) =>
        postJson(server.url + '/v1/completions', constrained(requiredWide(9000 + i))).then(() => performance.now() - hostileStart));
      await sleep(100);
      const loadedGap = await longestGap(client, 200);
      const loadedMs = await completionMs(server);
      const measuredBy = performance.now() - hostileStart;
      const compile = Math.min(...await Promise.all(hostile));
      t.diagnostic(`longest gap ${baseGap.toFixed(1)} -> ${loadedGap.toFixed(1)} ms, completion ${baseMs.toFixed(0)} -> ` +
                   `${loadedMs.toFixed(0)} ms; the first hostile schema took ${compile.toFixed(0)} ms`);
      assert.ok(compile > measuredBy, 'the hostile schemas were no longer compiling while measured');
      // Compiling on the engine's thread would stall the stream for a whole compile, longer than
      // the measurement (asserted above); half of it is the bound a loaded machine cannot trip.
      const gapBound = Math.max(8 * baseGap, 250, measuredBy / 2);
      assert.ok(loadedGap < gapBound, `a stream stalled ${loadedGap} ms (alone: ${baseGap} ms, bound ${gapBound} ms)`);
      assert.ok(loadedMs < Math.max(8 * baseMs, 500), `a completion took ${loadedMs} ms (alone: ${baseMs} ms)`);
    } finally {
      await stopServer(server);
    }
  });
});

describe('ogai serve: per-request budgets and memory', () => {
  // 64 clients at once, the figure. A busy machine (a build beside the test) once made the
  // server close connections whose client was slow to send its first byte (the keep-alive idle
  // deadline applied to new connections, and a reused connection was closed at the moment its
  // Keep-Alive hint said it was still open): EPIPE on the client. The body is encoded once, as a
  // client that sends the same bytes 64 times would, so that the test's own event loop is not the
  // slow client.
  it('refuses 64 hostile stop lists at once within 1 GB of RSS and returns the memory', async (t) => {
    const server = await startServer(ogai, stories, []);
    try {
      const stop = Array.from({ length: 720000 }, (_, i) => `s${i % 1000}`);
      const body = Buffer.from(JSON.stringify({ model: MODEL, prompt: 'x', max_tokens: 1, stop }));
      assert.ok(body.length < 8 << 20);
      const burst = (n) => Promise.all(Array.from({ length: n }, () => postJson(server.url + '/v1/completions', body)));
      for (const r of await burst(4)) assert.equal(r.status, 400);  // warm-up: pools, buffers
      await sleep(1200);
      const start = rssKiB(server.pid);
      let peak = start;
      const sampler = setInterval(() => { peak = Math.max(peak, rssKiB(server.pid)); }, 20);
      const answers = await burst(64).finally(() => clearInterval(sampler));
      for (const r of answers) {
        assert.equal(r.status, 400);
        assert.equal(r.json.error.param, 'stop');
        assert.match(r.json.error.message, /--max-stop-strings/);
      }
      // The server trims its heap every 250 ms once freed memory has grown or settled
      // (serve/engine/memory_return.h); the last frees of a burst can come a few periods late on a
      // loaded machine, so the RSS has up to 6 s to come back (without trimming it never does).
      const bound = start * 1.1 + 12288;
      const answered = Date.now();
      let end = rssKiB(server.pid);
      while (end >= bound && Date.now() - answered < 6000) {
        await sleep(100);
        end = rssKiB(server.pid);
      }
      t.diagnostic(`RSS ${start} KiB, peak ${peak} KiB, ${end} KiB after ${Date.now() - answered} ms`);
      assert.ok(peak < 1024 * 1024, `peak RSS ${peak} KiB`);
      assert.ok(end < bound, `RSS stayed at ${end} KiB for 6 s after starting at ${start} KiB`);
      const ok = await postJson(server.url + '/v1/completions', { model: MODEL, prompt: 'x', max_tokens: 2, stop: ['a', 'b'] });
      assert.equal(ok.status, 200);
    } finally {
      await stopServer(server);
    }
  });

  it('takes its stop budgets from --max-stop-strings and --max-stop-bytes', async () => {
    const server = await startServer(ogai, stories, ['--max-stop-strings', '20', '--max-stop-bytes', '64']);
    try {
      const seventeen = Array.from({ length: 17 }, (_, i) => `z${i}`);
      assert.equal((await postJson(server.url + '/v1/completions', { model: MODEL, prompt: 'x', max_tokens: 1, stop: seventeen })).status, 200);
      const long = await postJson(server.url + '/v1/completions', { model: MODEL, prompt: 'x', max_tokens: 1, stop: ['y'.repeat(65)] });
      assert.equal(long.status, 400);
      assert.match(long.json.error.message, /--max-stop-bytes/);
    } finally {
      await stopServer(server);
    }
  });
});
