// Issue 37 item 4: memory is returned after bursts. `ogai serve` (default flags) takes a burst of
// refused large requests on several routes (chat, completions, Messages, Responses, /tokenize,
// /detokenize: bodies of several MB that each end in a 400); its RSS must be back within 10% of
// idle within 5 s of the burst's end (idle: after a few small requests warmed every route, so the
// per-thread arenas and caches a first request creates count as idle). Before: 46 -> 678 MB,
// flat for 20 s.
//   node memory_after_burst_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { startServer, stopServer, postJson, rssKiB } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const long = process.env.OGAI_LONG_TESTS === '1';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const SIZE = long ? 7e6 : 3e6;  // bytes of each large body (under the 8 MiB --max-body-bytes)

const fill = (bytes) => Array.from({ length: Math.ceil(bytes / 88) }, (_, i) => 'x'.repeat(80) + i);
const user = [{ role: 'user', content: 'Lily' }];

// route, small body (warms the route), large body ending in a 400.
const routes = [
  ['/v1/chat/completions', { model: 'm', messages: user, max_tokens: 2 },
   () => ({ model: 'm', messages: fill(SIZE).slice(0, 2000).map((c) => ({ role: 'user', content: c })), extra: fill(SIZE), max_tokens: -1 })],
  ['/v1/completions', { model: 'm', prompt: 'Lily', max_tokens: 2 }, () => ({ model: 'm', prompt: 'x'.repeat(SIZE), max_tokens: -1 })],
  ['/v1/messages', { model: 'm', messages: user, max_tokens: 2 },
   () => ({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(SIZE / 2) }], extra: fill(SIZE / 2), max_tokens: -1 })],
  ['/v1/responses', { model: 'm', input: 'Lily', max_output_tokens: 2, store: false },
   () => ({ model: 'm', input: 'x'.repeat(SIZE / 2), extra: fill(SIZE / 2), max_output_tokens: -1 })],
  ['/v1/completions', { model: 'm', prompt: 'Lily', max_tokens: 2 }, () => ({ model: 'm', prompt: 'Lily '.repeat(SIZE / 10), max_tokens: 2 })],
  ['/v1/messages/count_tokens', { model: 'm', messages: user },
   () => ({ model: 'm', messages: [{ role: 'user', content: 'Lily '.repeat(SIZE / 10) }], system: 7 })],
  ['/tokenize', { content: 'Lily', with_pieces: true }, () => ({ content: 'Lily '.repeat(SIZE / 10), extra: fill(SIZE / 2), with_pieces: 'x' })],
  ['/detokenize', { tokens: [1, 2] }, () => ({ tokens: [...Array.from({ length: SIZE / 8 }, (_, i) => i % 500), -1] })],
];

describe('ogai serve: RSS returns to idle after a burst of refused large requests', () => {
  let server;
  before(async () => { server = await startServer(ogai, stories, ['--model-name', 'm']); });
  after(async () => {
    const end = await stopServer(server);
    assert.equal(end.code, 0, end.stderr.slice(-2000));
  });

  it('is back within 10% of idle within 5 s', async () => {
    for (let round = 0; round < 3; ++round)
      for (const [route, small] of routes) {
        const res = await postJson(server.url + route, small);
        assert.equal(res.status, 200, `${route}: ${res.text.slice(0, 300)}`);
      }
    await sleep(1500);  // the server's own trim after the warm-up
    const idle = rssKiB(server.pid);
    let peak = idle;
    const sampler = setInterval(() => { peak = Math.max(peak, rssKiB(server.pid)); }, 20);
    for (let burst = 0; burst < 2; ++burst) {
      const answers = await Promise.all(routes.flatMap(([route, , large]) => {
        const body = JSON.stringify(large());
        return [postJson(server.url + route, body), postJson(server.url + route, body)];
      }));
      for (const a of answers) assert.equal(a.status, 400, a.text.slice(0, 300));
    }
    const end = performance.now();
    let now = rssKiB(server.pid);
    while (now > idle * 1.1 && performance.now() - end < 5000) {
      await sleep(100);
      now = rssKiB(server.pid);
    }
    clearInterval(sampler);
    const what = `idle ${(idle / 1024).toFixed(1)} MB, peak ${(peak / 1024).toFixed(1)} MB, ` +
                 `${((performance.now() - end) / 1000).toFixed(1)} s after the burst ${(now / 1024).toFixed(1)} MB`;
    console.log(what);
    assert.ok(peak > idle * 1.2, `the burst must raise RSS for the check to mean something: ${what}`);
    assert.ok(now <= idle * 1.1, what);
  });
});
