// Streaming with n > 1 through `ogai serve`, driven by the real `openai` npm client on
// stories260k: every choice's chunks carry its index and the streamed choices equal the whole
// n-choice answer (text, finish reason, logprobs in both shapes, usage), choice i equals the request sent alone
// with seed + i, a stop string ends one choice early while the others run to their length, and a
// client that goes away mid-stream cancels every row (the gauges in /metrics go back to 0).
//   node stream_n_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer, http, metric } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const MODEL = 'stories260k';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, condition, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await condition()) return;
    await sleep(20);
  }
  assert.fail(`timed out waiting for ${what}`);
}

// Log-probabilities of two runs: the same tokens and offsets; values within 1e-4 (the batch's rows
// differ between runs, and ONNX Runtime's sums with them in the last bits).
function sameLogprobs(actual, expected, where) {
  const close = (a, b, at) => {
    if (typeof a === 'number' && typeof b === 'number') assert.ok(Math.abs(a - b) < 1e-4, `${where} ${at}: ${a} vs ${b}`);
    else if (a && typeof a === 'object' && b && typeof b === 'object') {
      assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), `${where} ${at}`);
      for (const k of Object.keys(a)) close(a[k], b[k], `${at}.${k}`);
    } else assert.deepEqual(a, b, `${where} ${at}`);
  };
  close(actual, expected, '');
}

// A stream's choices by index: {text, finish, chunks, logprobs (chat: content entries)}, the
// usage chunk, the order of the indices of the chunks, and what came after a finish chunk.
async function collect(stream) {
  const choices = [];
  const order = [];
  let usage = null;
  let usageChunks = 0;
  for await (const chunk of stream) {
    if (chunk.usage) {
      usage = chunk.usage;
      usageChunks++;
      assert.equal(chunk.choices.length, 0, 'the usage chunk has no choices');
    }
    for (const c of chunk.choices) {
      const i = c.index;
      choices[i] ??= { text: '', finish: null, chunks: 0, logprobs: [], legacy: null };
      const out = choices[i];
      assert.equal(out.finish, null, `choice ${i} got a chunk after its finish_reason`);
      out.chunks++;
      order.push(i);
      out.text += c.delta ? (c.delta.content ?? '') : c.text;
      if (c.logprobs?.content) out.logprobs.push(...c.logprobs.content);
      if (c.logprobs?.tokens) {  // completions: the legacy arrays, continued chunk by chunk
        out.legacy ??= { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] };
        for (const k of Object.keys(out.legacy)) out.legacy[k].push(...c.logprobs[k]);
      }
      if (c.finish_reason) out.finish = c.finish_reason;
    }
  }
  return { choices, order, usage, usageChunks };
}

describe('ogai serve: streaming with n > 1', () => {
  let server;
  let client;
  const metrics = async () => (await http(server.url + '/metrics')).text;
  before(async () => {
    server = await startServer(ogai, stories, ['--max-concurrent', '8', '--idle-timeout', '60']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    const end = await stopServer(server);
    assert.equal(end.code, 0, end.stderr);
  });

  it('completions: streamed choices equal the whole answer and the solo runs with seed + i', async (t) => {
    const body = { model: MODEL, prompt: 'Once upon a time', max_tokens: 24, temperature: 1.0, seed: 7, n: 3, logprobs: 2 };
    const whole = await client.completions.create(body);
    const s = await collect(await client.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }));
    assert.equal(s.choices.length, 3);
    for (let i = 0; i < 3; i++) {
      assert.equal(s.choices[i].text, whole.choices[i].text, `choice ${i}`);
      assert.equal(s.choices[i].finish, whole.choices[i].finish_reason, `choice ${i}`);
      sameLogprobs(s.choices[i].legacy, whole.choices[i].logprobs, `choice ${i} logprobs`);
      const solo = await client.completions.create({ ...body, n: 1, seed: 7 + i });
      assert.equal(s.choices[i].text, solo.choices[0].text, `choice ${i} vs seed ${7 + i} alone`);
    }
    assert.ok(new Set(s.choices.map((c) => c.text)).size >= 2, 'the choices should differ');
    assert.equal(s.usageChunks, 1);
    assert.deepEqual(s.usage, whole.usage);
    const interleaved = s.order.some((i, k) => k > 0 && i < s.order[k - 1]);
    t.diagnostic(`chunk order ${s.order.join('')} (${interleaved ? '' : 'not '}interleaved)`);
  });

  it('a stop string ends one choice early; the others run to their length', async () => {
    const body = { model: MODEL, prompt: 'Once upon a time', max_tokens: 30, temperature: 1.0, seed: 11, n: 3,
                   ignore_eos: true };
    const free = await client.completions.create(body);
    // A word that only choice `k` writes (after its first few characters) becomes its stop string.
    let stop = null;
    let k = -1;
    for (let i = 0; i < 3 && !stop; i++) {
      const others = free.choices.filter((_, j) => j !== i).map((c) => c.text);
      const words = free.choices[i].text.slice(5).match(/[a-z]{4,}/g) ?? [];
      stop = words.find((w) => others.every((o) => !o.includes(w))) ?? null;
      k = i;
    }
    assert.ok(stop, `no word of one choice alone in ${JSON.stringify(free.choices.map((c) => c.text))}`);
    const whole = await client.completions.create({ ...body, stop: [stop] });
    const s = await collect(await client.completions.create({ ...body, stop: [stop], stream: true,
                                                              stream_options: { include_usage: true } }));
    assert.deepEqual(s.choices.map((c) => c.finish), s.choices.map((_, i) => (i === k ? 'stop' : 'length')));
    assert.deepEqual(s.choices.map((c) => c.finish), whole.choices.map((c) => c.finish_reason));
    assert.deepEqual(s.choices.map((c) => c.text), whole.choices.map((c) => c.text));
    assert.ok(!s.choices[k].text.includes(stop) && s.choices[k].text.length < free.choices[k].text.length);
    assert.deepEqual(s.usage, whole.usage);
    assert.ok(s.usage.completion_tokens < 90, JSON.stringify(s.usage));
  });

  it('chat: per-choice role chunk, logprobs and finish reasons as the whole answer', async () => {
    const body = { model: MODEL, messages: [{ role: 'user', content: 'Lily' }], max_tokens: 16, temperature: 0.8,
                   seed: 3, n: 2, logprobs: true, top_logprobs: 2 };
    const whole = await client.chat.completions.create(body);
    const stream = await client.chat.completions.create({ ...body, stream: true });
    const roles = [];
    const chunks = [];
    for await (const chunk of stream) {
      for (const c of chunk.choices) if (c.delta.role) roles.push(c.index);
      chunks.push(chunk);
    }
    assert.deepEqual(roles.sort(), [0, 1]);
    const s = await collect((async function* () { yield* chunks; })());
    for (let i = 0; i < 2; i++) {
      const w = whole.choices[i];
      assert.equal(s.choices[i].text, w.message.content, `choice ${i}`);
      assert.equal(s.choices[i].finish, w.finish_reason, `choice ${i}`);
      sameLogprobs(s.choices[i].logprobs, w.logprobs.content, `choice ${i} logprobs`);
      assert.equal(s.choices[i].logprobs.map((e) => e.token).join(''), w.message.content);
    }
    assert.notEqual(s.choices[0].text, s.choices[1].text);
  });

  it('a client that goes away mid-stream cancels every choice and frees its rows', async (t) => {
    const cancelledBefore = metric(await metrics(), 'ogai_generations_total{finish_reason="cancelled"}');
    const generatedBefore = metric(await metrics(), 'ogai_generated_tokens_total');
    const controller = new AbortController();
    const stream = await client.completions.create(
      { model: MODEL, prompt: 'Once upon a time', max_tokens: 480, ignore_eos: true, temperature: 1.0, seed: 5, n: 3,
        stream: true },
      { signal: controller.signal });
    const seen = new Set();
    for await (const chunk of stream) {
      for (const c of chunk.choices) seen.add(c.index);
      if (seen.size === 3) {
        controller.abort();
        break;
      }
    }
    let text;
    await waitFor('three cancelled choices', async () => {
      text = await metrics();
      return metric(text, 'ogai_generations_total{finish_reason="cancelled"}') === cancelledBefore + 3;
    });
    const generated = metric(text, 'ogai_generated_tokens_total') - generatedBefore;
    t.diagnostic(`cancelled after ${generated} of 3 x 480 tokens`);
    assert.ok(generated < 3 * 480, 'the choices ran to their end');
    await waitFor('no row in flight and no KV held by the batch', async () => {
      const m = await metrics();
      return metric(m, 'ogai_requests_in_flight') === 0 && metric(m, `vllm:num_requests_running{model_name="${MODEL}"}`) === 0
        && metric(m, 'ogai_kv_cache_bytes') === 0;
    });
  });
});
