// `ogai serve` under abuse: bad requests of every kind interleaved with good ones (each gets its
// 4xx with an OpenAI-style error body and the server keeps serving), a streaming client that
// aborts (its generation is cancelled), a full queue (429, nothing lost), memory that does not grow
// across request rounds, /metrics, and shutdown on SIGTERM with a stream in flight.
//   node robustness_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer, http, postJson, metric, rssKiB } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const MODEL = 'stories260k';
const chat = (extra = {}) => ({ model: MODEL, messages: [{ role: 'user', content: 'Once upon a time' }], max_tokens: 20, ...extra });
const completion = (extra = {}) => ({ model: MODEL, prompt: 'Once upon a time', max_tokens: 20, ...extra });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, condition, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await condition()) return;
    await sleep(20);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('ogai serve robustness', () => {
  let server;
  let client;
  before(async () => {
    server = await startServer(ogai, stories, ['--max-concurrent', '2', '--queue', '64', '--max-body-bytes', '65536']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    const end = await stopServer(server);
    assert.equal(end.code, 0, end.stderr);
  });

  it('answers every bad request with its 4xx while good ones keep working', async () => {
    const url = server.url;
    const long = 'hello '.repeat(700);
    const bad = [
      [400, 'invalid_json', null, () => postJson(url + '/v1/chat/completions', '{"model": "stories260k", "messages": [')],
      [400, 'invalid_json', null, () => postJson(url + '/v1/completions', '"just a string"')],
      [400, null, 'temperature', () => postJson(url + '/v1/chat/completions', chat({ temperature: 'hot' }))],
      [400, null, 'messages', () => postJson(url + '/v1/chat/completions', { model: MODEL })],
      [400, null, 'messages[0].role', () => postJson(url + '/v1/chat/completions', { model: MODEL, messages: [{ content: 'x' }] })],
      [400, null, 'model', () => postJson(url + '/v1/completions', { prompt: 'x' })],
      [404, 'model_not_found', 'model', () => postJson(url + '/v1/completions', completion({ model: 'gpt-4o' }))],
      [400, null, 'temperature', () => postJson(url + '/v1/completions', completion({ temperature: -1 }))],
      [400, null, 'temperature', () => postJson(url + '/v1/completions', completion({ temperature: -1, stream: true }))],
      [400, null, 'top_p', () => postJson(url + '/v1/chat/completions', chat({ top_p: 1.5, stream: true }))],
      [400, null, 'min_p', () => postJson(url + '/v1/chat/completions', chat({ min_p: 2 }))],
      [400, null, 'frequency_penalty', () => postJson(url + '/v1/completions', completion({ frequency_penalty: 3 }))],
      [400, null, 'repetition_penalty', () => postJson(url + '/v1/completions', completion({ repetition_penalty: 0 }))],
      [400, null, 'logit_bias', () => postJson(url + '/v1/completions', completion({ logit_bias: { 5: 500 } }))],
      [400, null, 'logit_bias', () => postJson(url + '/v1/completions', completion({ logit_bias: { 99999: 1 } }))],
      [400, null, 'max_tokens', () => postJson(url + '/v1/completions', completion({ max_tokens: 0 }))],
      [400, null, 'stop', () => postJson(url + '/v1/completions', completion({ stop: [''] }))],
      [400, null, 'n', () => postJson(url + '/v1/chat/completions', chat({ n: 129, stream: true }))],
      [400, null, 'n', () => postJson(url + '/v1/chat/completions', chat({ n: 0 }))],
      [400, 'unsupported', 'functions', () => postJson(url + '/v1/chat/completions', chat({ functions: [{ name: 'f' }] }))],
      [400, null, 'tools[0].function.name', () => postJson(url + '/v1/chat/completions', chat({ tools: [{ type: 'function', function: {} }] }))],
      [400, null, 'top_logprobs', () => postJson(url + '/v1/chat/completions', chat({ top_logprobs: 2 }))],
      [400, null, 'logprobs', () => postJson(url + '/v1/completions', completion({ logprobs: 6 }))],
      [400, 'context_length_exceeded', 'prompt', () => postJson(url + '/v1/completions', completion({ prompt: long }))],
      [400, 'context_length_exceeded', 'messages', () => postJson(url + '/v1/chat/completions', chat({ messages: [{ role: 'user', content: long }] }))],
      [413, 'request_too_large', null, () => postJson(url + '/v1/completions', completion({ prompt: 'x'.repeat(70000) }))],
      [413, 'request_too_large', null, () => http(url + '/v1/completions', { method: 'POST', body: JSON.stringify(completion({ prompt: 'y'.repeat(9000) })),
                                                                     headers: { 'content-type': 'application/x-www-form-urlencoded' } })],
      [400, null, 'temperature', () => postJson(url + '/v1/completions', `{"model":"${MODEL}","prompt":"x","temperature":${'['.repeat(30000)}${']'.repeat(30000)}}`)],
      [404, 'not_found', null, () => http(url + '/v1/engines')],
      [404, 'not_found', null, () => postJson(url + '/v2/completions', completion())],
      [405, 'method_not_allowed', null, () => http(url + '/v1/chat/completions')],
      [405, 'method_not_allowed', null, () => http(url + '/v1/models', { method: 'DELETE' })],
      [405, 'method_not_allowed', null, () => http(url + '/health', { method: 'PUT', body: 'x' })],
      [404, 'model_not_found', 'model', () => http(url + '/v1/models/gpt-4o')],
    ];
    const good = () => postJson(url + '/v1/completions', completion({ max_tokens: 10 }));
    const expectedGood = (await good()).json.choices[0].text;
    const jobs = [];
    for (const b of bad) jobs.push(b[3](), good());
    const results = await Promise.all(jobs);
    for (let i = 0; i < bad.length; i++) {
      const [status, code, param] = bad[i];
      const r = results[2 * i];
      const label = `bad request #${i} (${status} ${code} ${param}): got ${r.status} ${r.text.slice(0, 200)}`;
      assert.equal(r.status, status, label);
      assert.equal(typeof r.json.error.message, 'string', label);
      assert.ok(r.json.error.message.length > 0, label);
      assert.equal(r.json.error.type, 'invalid_request_error', label);
      if (code) assert.equal(r.json.error.code, code, label);
      if (param) assert.equal(r.json.error.param, param, label);
      assert.equal(results[2 * i + 1].status, 200);
      assert.equal(results[2 * i + 1].json.choices[0].text, expectedGood);
    }
    assert.equal(results[2 * bad.findIndex((b) => b[0] === 405)].headers.get('allow'), 'POST');
    assert.equal((await http(url + '/health')).status, 200);
  });

  it('raises the server\'s 400 through the openai client with its param', async () => {
    await assert.rejects(client.chat.completions.create(chat({ temperature: -0.5 })),
                         (e) => e.status === 400 && e.param === 'temperature' && /temperature/.test(e.message));
    await assert.rejects(client.chat.completions.create(chat({ top_k: -3, stream: true })),
                         (e) => e.status === 400 && e.param === 'top_k');
  });

  it('cancels the generation of a client that aborts its stream', async (t) => {
    const metricsText = async () => (await http(server.url + '/metrics')).text;
    const cancelledBefore = metric(await metricsText(), 'ogai_generations_total{finish_reason="cancelled"}');
    const generatedBefore = metric(await metricsText(), 'ogai_generated_tokens_total');
    const controller = new AbortController();
    const stream = await client.completions.create(completion({ max_tokens: 480, ignore_eos: true, stream: true }),
                                                   { signal: controller.signal });
    let chunks = 0;
    for await (const chunk of stream) {
      if (++chunks === 3) {
        controller.abort();
        break;
      }
    }
    let text;
    await waitFor('the cancelled generation', async () => {
      text = await metricsText();
      return metric(text, 'ogai_generations_total{finish_reason="cancelled"}') === cancelledBefore + 1;
    });
    const generated = metric(text, 'ogai_generated_tokens_total') - generatedBefore;
    t.diagnostic(`cancelled after ${generated} of 480 tokens`);
    assert.ok(generated < 480, 'the generation ran to its end');
    await waitFor('no generation in flight', async () => metric(await metricsText(), 'ogai_requests_in_flight') === 0);
  });

  it('does not grow its memory across request rounds', async (t) => {
    const round = () => Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2
      ? client.chat.completions.create(chat({ max_tokens: 40, temperature: 0.7, seed: i, stream: i % 4 === 1 }))
      : client.completions.create(completion({ max_tokens: 40, temperature: 0.7, seed: i })))
      .then(async (r) => { if (r[Symbol.asyncIterator]) for await (const _ of r); })));
    for (let i = 0; i < 4; i++) await round();  // warm-up: allocator arenas, thread pools
    const start = rssKiB(server.pid);
    for (let i = 0; i < 8; i++) await round();
    const end = rssKiB(server.pid);
    t.diagnostic(`RSS ${start} KiB -> ${end} KiB over 8 rounds of 12 requests`);
    assert.ok(end - start < 4096, `RSS grew from ${start} KiB to ${end} KiB over 8 rounds`);
  });

  it('refuses to start on a port in use, saying so', async () => {
    const port = new URL(server.url).port;
    const second = await startServer(ogai, stories, ['--port', port]).then((s) => s, (e) => e);
    if (second.proc) await stopServer(second, 'SIGKILL');
    assert.ok(/exited 1/.test(second.message) && /cannot listen/.test(second.message), 'a second server took the port');
  });

  it('reports metrics in Prometheus text', async () => {
    const text = (await http(server.url + '/metrics')).text;
    assert.ok(metric(text, 'ogai_http_requests_total{endpoint="/v1/completions",status="200"}') > 0);
    for (const status of ['400', '404', '413'])
      assert.ok(metric(text, `ogai_http_requests_total{endpoint="/v1/completions",status="${status}"}`) > 0, status);
    assert.ok(metric(text, 'ogai_http_requests_total{endpoint="/v1/chat/completions",status="405"}') > 0);
    assert.ok(metric(text, 'ogai_http_requests_total{endpoint="other",status="404"}') > 0);
    assert.ok(metric(text, 'ogai_generated_tokens_total') > 100);
    assert.ok(metric(text, 'ogai_time_to_first_token_seconds_count') > 10);
    assert.ok(metric(text, 'ogai_time_to_first_token_seconds{quantile="0.5"}') > 0);
    assert.ok(metric(text, 'ogai_decode_tokens_per_second{quantile="0.5"}') > 0);
    assert.equal(metric(text, 'ogai_queue_depth'), 0);
    assert.match(text, /# TYPE ogai_requests_in_flight gauge/);
  });
});

describe('ogai serve admission and shutdown', () => {
  it('refuses beyond the queue with 429 and loses nothing', async () => {
    const server = await startServer(ogai, stories, ['--max-concurrent', '1', '--queue', '1']);
    try {
      const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
      const body = (i) => completion({ max_tokens: 300, ignore_eos: true, temperature: 0.8, seed: i });
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => client.completions.create(body(i))));
      const ok = outcomes.filter((o) => o.status === 'fulfilled');
      const refused = outcomes.filter((o) => o.status === 'rejected');
      assert.ok(ok.length >= 2, `${ok.length} answered`);
      assert.ok(refused.length >= 1, 'nothing was refused');
      for (const r of refused) assert.ok(r.reason.status === 429 && r.reason.code === 'queue_full', String(r.reason));
      for (let i = 0; i < 6; i++) {
        if (outcomes[i].status !== 'fulfilled') continue;
        const alone = await client.completions.create(body(i));
        assert.equal(outcomes[i].value.choices[0].text, alone.choices[0].text);
        assert.equal(outcomes[i].value.usage.completion_tokens, 300);
      }
    } finally {
      assert.equal((await stopServer(server)).code, 0);
    }
  });

  it('stops on SIGTERM with a stream in flight and a request queued', async (t) => {
    const server = await startServer(ogai, stories, ['--max-concurrent', '1', '--queue', '4', '--drain-timeout', '0']);
    const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
    const stream = await client.completions.create(completion({ max_tokens: 480, ignore_eos: true, stream: true }));
    const queued = postJson(server.url + '/v1/completions', completion({ max_tokens: 50 }));
    const reader = (async () => { let n = 0; for await (const _ of stream) n++; return n; })()
      .then((chunks) => ({ chunks }), (error) => ({ error }));
    await waitFor('one generation running and one queued', async () => {
      const text = (await http(server.url + '/metrics')).text;
      return metric(text, 'ogai_requests_in_flight') === 1 && metric(text, 'ogai_queue_depth') === 1;
    });
    const end = await stopServer(server, 'SIGTERM');
    assert.equal(end.code, 0, end.stderr);
    assert.match(end.stderr, /SIGTERM received, stopping[\s\S]*stopped/);
    assert.ok(end.ms < 5000, `took ${end.ms} ms to stop`);
    const q = await queued.catch((e) => ({ status: `no answer (${e.cause})` }));
    assert.equal(q.status, 503, `queued request got ${q.status}`);
    // The stream ends with the server's shutting_down error event (or, on a machine fast enough
    // to finish 480 tokens before the signal, completes).
    const ended = await reader;
    t.diagnostic(`stopped in ${end.ms} ms; queued request: ${q.status}; stream: ${ended.error ? ended.error.code : 'completed'}`);
    assert.ok(ended.chunks > 0 || ended.error.code === 'shutting_down', String(ended.error));
  });
});
