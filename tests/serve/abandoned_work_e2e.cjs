// Issue 37 items 2 and 3: work nobody waits for stops, and large bodies do not hold up others.
// - Embeddings: four large embedding requests whose clients leave at once stop at their next
//   input or graph run; a fresh 1-input request then answers in about the time of one large
//   request measured alone in this run (before: after all four had been computed).
// - Large bodies: four 7 MB chat bodies that end in a 400 take the bulk lane one at a time, so a
//   short completion sent meanwhile answers within a second of its own time alone in this run.
//   node abandoned_work_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { startServer, stopServer, postJson } = require('./server_harness.cjs');
const { connect, request } = require('./raw_http.cjs');

const ogai = process.argv[2];
const tinyE2b = path.join(process.env.OGAI_SOURCE_DIR, 'tests/data/packages/tiny-e2b');
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function timed(f) {
  const start = performance.now();
  const out = await f();
  return { ms: performance.now() - start, out };
}

// Sends `body` to `route` on a raw connection and closes it at once (the client leaves).
async function leave(port, route, body) {
  const socket = await connect(port);
  socket.write(request('POST', route, { body, headers: { 'content-type': 'application/json' } }));
  await sleep(50);
  socket.destroy();
}

describe('ogai serve: embeddings whose clients left stop', () => {
  let server;
  before(async () => { server = await startServer(ogai, tinyE2b, ['--model-name', 'e']); });
  after(async () => {
    const end = await stopServer(server);
    assert.equal(end.code, 0, end.stderr);
  });

  it('a fresh request does not wait for four abandoned large ones', async () => {
    const ids = Array.from({ length: 400 }, (_, i) => (i * 7) % 250 + 1);
    const large = { model: 'e', input: Array.from({ length: 60 }, () => ids) };
    const alone = await timed(() => postJson(server.url + '/v1/embeddings', large));
    assert.equal(alone.out.status, 200, alone.out.text);
    const port = Number(new URL(server.url).port);
    const body = JSON.stringify(large);
    await Promise.all(Array.from({ length: 4 }, () => leave(port, '/v1/embeddings', body)));
    const fresh = await timed(() => postJson(server.url + '/v1/embeddings', { model: 'e', input: [ids] }));
    assert.equal(fresh.out.status, 200, fresh.out.text);
    // Abandoned work running on would make it wait about 4 x alone.ms.
    assert.ok(fresh.ms < 1.5 * alone.ms + 1000,
              `a fresh request took ${fresh.ms.toFixed(0)} ms; one large request alone ${alone.ms.toFixed(0)} ms`);
  });
});

describe('ogai serve: large bodies take a lane of their own', () => {
  let server;
  before(async () => { server = await startServer(ogai, stories, ['--model-name', 'm']); });
  after(async () => {
    const end = await stopServer(server);
    assert.equal(end.code, 0, end.stderr);
  });

  it('a short completion is not held up by four 7 MB bodies', async () => {
    const short = () => postJson(server.url + '/v1/completions', { model: 'm', prompt: 'Lily', max_tokens: 3 });
    await short();
    const alone = await timed(short);
    assert.equal(alone.out.status, 200, alone.out.text);
    // 7 MB of messages, then a field that makes the request a 400 once all of it is parsed.
    const messages = Array.from({ length: 70000 }, (_, i) => ({ role: 'user', content: 'x'.repeat(80) + i }));
    const big = JSON.stringify({ model: 'm', messages, max_tokens: -1 });
    assert.ok(big.length > 6e6 && big.length < 8e6, `body of ${big.length} bytes`);
    const hostile = Array.from({ length: 4 }, () => postJson(server.url + '/v1/chat/completions', big));
    await sleep(200);  // the bodies are arriving and being parsed
    const during = await timed(short);
    assert.equal(during.out.status, 200, during.out.text);
    for (const r of await Promise.all(hostile)) assert.equal(r.status, 400, r.text.slice(0, 300));
    assert.ok(during.ms < alone.ms + 1000,
              `a short completion took ${during.ms.toFixed(0)} ms beside four 7 MB bodies, ${alone.ms.toFixed(0)} ms alone`);
  });
});
