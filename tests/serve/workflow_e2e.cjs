// `ogai serve` on looped workflow packages (the conformance fixtures decoder and speculative,
// tokenizer-less: prompts are token ids, replies their ids as text): through the openai client,
// completions equal `ogai run` on the same ids greedy and seeded (the reference's seed-7 ids
// [111, 1, 80, 49, 3] for [4, 5]), several at once equal each alone, streamed equals whole, n
// choices use seed + i, stop strings and the workflow's own EOS finish with `stop`, max_tokens
// with `length`, logprobs get a 400 naming why, and a failing request leaves the others whole.
//   node workflow_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('child_process');
const { promisify } = require('util');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer } = require('./server_harness.cjs');

const ogai = process.argv[2];
const fixtures = path.join(process.env.OGAI_SHARED_DIR, 'conformance/metadata/fixtures');
const DECODER = path.join(fixtures, 'decoder');
const SPECULATIVE = path.join(fixtures, 'speculative');
const MODEL = 'm';

// `ogai run PKG --input NAME=IDS --max-new-tokens N [--seed S --temperature 1] [inputs]`: tokens.row.0.
async function ran(pkg, name, ids, n, { seed, sample = false, inputs = [] } = {}) {
  const args = ['run', pkg, '--input', `${name}=${JSON.stringify([ids])}`, '--max-new-tokens', String(n), '--json',
                ...inputs];
  if (seed !== undefined) args.push('--seed', String(seed));
  if (sample) args.push('--temperature', '1');
  const { stdout } = await promisify(execFile)(ogai, args);
  return JSON.parse(stdout).outputs['tokens.row.0'].data;
}

async function streamText(client, body) {
  const stream = await client.completions.create({ ...body, stream: true });
  let text = '';
  let finish = null;
  let chunks = 0;
  for await (const chunk of stream) {
    const c = chunk.choices[0];
    if (!c) continue;
    text += c.text;
    if (c.text) ++chunks;
    if (c.finish_reason) finish = c.finish_reason;
  }
  return { text, finish, chunks };
}

describe('ogai serve on the decoder workflow fixture', () => {
  let server;
  let client;
  before(async () => {
    server = await startServer(ogai, DECODER, ['--model-name', MODEL]);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    const end = await stopServer(server, 'SIGTERM');
    assert.equal(end.code, 0, end.stderr);
  });

  it('seeded and greedy completions equal ogai run', async () => {
    const seeded = await client.completions.create({ model: MODEL, prompt: [4, 5], max_tokens: 5, temperature: 1,
                                                     seed: 7 });
    assert.equal(seeded.choices[0].text, '111 1 80 49 3');
    assert.deepEqual(await ran(DECODER, 'request.input_ids', [4, 5], 5, { seed: 7, sample: true }), [111, 1, 80, 49, 3]);
    assert.equal(seeded.choices[0].finish_reason, 'length');
    assert.equal(seeded.usage.completion_tokens, 5);
    assert.equal(seeded.usage.prompt_tokens, 2);
    const greedy = await client.completions.create({ model: MODEL, prompt: [6, 0], max_tokens: 4, temperature: 0 });
    assert.equal(greedy.choices[0].text, (await ran(DECODER, 'request.input_ids', [6, 0], 4)).join(' '));
  });

  it('several at once equal each alone; streamed equals whole', async () => {
    const bodies = [0, 1, 2, 3].map((seed) => ({ model: MODEL, prompt: [4, 5], max_tokens: 6, temperature: 1, seed }));
    const solo = [];
    for (const b of bodies) solo.push((await client.completions.create(b)).choices[0].text);
    const together = await Promise.all([
      ...bodies.map((b) => client.completions.create(b).then((r) => r.choices[0].text)),
      ...bodies.map((b) => streamText(client, b)),
    ]);
    assert.deepEqual(together.slice(0, 4), solo);
    together.slice(4).forEach((s, i) => {
      assert.equal(s.text, solo[i], `stream ${i}`);
      assert.equal(s.finish, 'length');
      // A chunk per id as they are emitted, but the stream pump coalesces ids that arrived while
      // the previous chunk was being written (backpressure): on a loaded machine all 6 can come as
      // one chunk (seen in a fresh-clone CI run), so only the bound is checked here. One event per
      // id is asserted where it is deterministic: engine_surface_test's 300-id stream.
      assert.ok(s.chunks >= 1 && s.chunks <= 6, `${s.chunks} chunks for 6 ids`);
    });
    for (let i = 0; i < 4; ++i)
      assert.equal(solo[i], (await ran(DECODER, 'request.input_ids', [4, 5], 6, { seed: i, sample: true })).join(' '));
  });

  it('n choices use seed + i', async () => {
    const r = await client.completions.create({ model: MODEL, prompt: [4, 5], max_tokens: 5, temperature: 1, seed: 7,
                                                n: 2 });
    assert.equal(r.choices.length, 2);
    assert.equal(r.choices[0].text, '111 1 80 49 3');
    assert.equal(r.choices[1].text, (await ran(DECODER, 'request.input_ids', [4, 5], 5, { seed: 8, sample: true })).join(' '));
  });

  it('a stop string ends with stop', async () => {
    const r = await client.completions.create({ model: MODEL, prompt: [4, 5], max_tokens: 5, temperature: 1, seed: 7,
                                                stop: [' 80'] });
    assert.equal(r.choices[0].text, '111 1');
    assert.equal(r.choices[0].finish_reason, 'stop');
  });

  it('logprobs get a 400 naming why; a text prompt too; the server keeps serving', async () => {
    await assert.rejects(client.completions.create({ model: MODEL, prompt: [4, 5], max_tokens: 2, logprobs: 1 }),
                         (e) => e.status === 400 && /logprobs/.test(e.message) && /exposes no logits/.test(e.message));
    await assert.rejects(client.completions.create({ model: MODEL, prompt: 'hello', max_tokens: 2 }),
                         (e) => e.status === 400 && /no tokenizer/.test(e.message));
    const r = await client.completions.create({ model: MODEL, prompt: [4, 5], max_tokens: 1, temperature: 1, seed: 7 });
    assert.equal(r.choices[0].text, '111');
  });

  // Issue 37: the budget is refused before the plan is sized by it (10^7 once took 2.6 GB and 10 s).
  it('a budget of 10^8 new tokens is a 400 at once, without the memory', async () => {
    const start = performance.now();
    await assert.rejects(client.completions.create({ model: MODEL, prompt: [4, 5], max_tokens: 100000000 }),
                         (e) => e.status === 400 && /max_tokens|max_new_tokens/.test(e.message + (e.param || '')));
    assert.ok(performance.now() - start < 2000, `took ${performance.now() - start} ms`);
    const r = await client.completions.create({ model: MODEL, prompt: [4, 5], max_tokens: 1, temperature: 1, seed: 7 });
    assert.equal(r.choices[0].text, '111');
  });
});

describe('ogai serve on a decoder fixture with its own EOS and a small cache bound', () => {
  let server;
  let client;
  before(async () => {
    server = await startServer(ogai, DECODER, ['--model-name', MODEL, '--input', 'eos_ids=[[80]]',
                                               '--input', 'package.max_context=[12]']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server, 'SIGTERM'); });

  it('the workflow ending on its EOS finishes with stop; a request over the bound fails alone', async () => {
    const [ok, bad, stream] = await Promise.allSettled([
      client.completions.create({ model: MODEL, prompt: [4, 5], max_tokens: 5, temperature: 1, seed: 7 }),
      client.completions.create({ model: MODEL, prompt: [4, 5], max_tokens: 40, temperature: 1, seed: 7 }),
      streamText(client, { model: MODEL, prompt: [4, 5], max_tokens: 5, temperature: 1, seed: 7 }),
    ]);
    assert.equal(ok.status, 'fulfilled', String(ok.reason));
    assert.equal(ok.value.choices[0].text, '111 1 80');
    assert.equal(ok.value.choices[0].finish_reason, 'stop');
    assert.equal(stream.status, 'fulfilled', String(stream.reason));
    assert.deepEqual([stream.value.text, stream.value.finish], ['111 1 80', 'stop']);
    assert.equal(bad.status, 'rejected');
    assert.match(String(bad.reason.message), /over its max 12/);
  });

  it('an EOS in the last trip max_tokens allows still finishes with stop; one trip short is length', async () => {
    const last = await client.completions.create({ model: MODEL, prompt: [4, 5], max_tokens: 3, temperature: 1, seed: 7 });
    assert.deepEqual([last.choices[0].text, last.choices[0].finish_reason], ['111 1 80', 'stop']);
    const short = await client.completions.create({ model: MODEL, prompt: [4, 5], max_tokens: 2, temperature: 1, seed: 7 });
    assert.deepEqual([short.choices[0].text, short.choices[0].finish_reason], ['111 1', 'length']);
  });
});

describe('ogai serve on the speculative workflow fixture', () => {
  let server;
  let client;
  let inputs;
  before(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai-workflow-e2e-'));
    const npy = (name, shape) => {  // an empty float32 .npy of `shape`
      const header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}), }`;
      const pad = 64 - ((10 + header.length + 1) % 64);
      const h = header + ' '.repeat(pad) + '\n';
      const buf = Buffer.alloc(10 + h.length);
      buf.write('\x93NUMPY', 0, 'latin1');
      buf[6] = 1; buf[7] = 0;
      buf.writeUInt16LE(h.length, 8);
      buf.write(h, 10, 'latin1');
      const file = path.join(dir, name);
      fs.writeFileSync(file, buf);
      return file;
    };
    inputs = ['--input', `verifier.past_key_values.0.key=@${npy('key.npy', [1, 2, 0, 8])}`,
              '--input', `verifier.past_key_values.0.value=@${npy('value.npy', [1, 4, 0, 4])}`,
              '--input', 'grammar.initial_state=[0]', '--input', `grammar.transition_table=${JSON.stringify([Array(32).fill(0)])}`,
              '--input', 'adaptive.current_k=[4]', '--input', `adaptive.estimates=${JSON.stringify([Array(24).fill(0)])}`,
              '--input', 'telemetry.draft_ms=[1.0]', '--input', 'telemetry.target_ms=[1.0]'];
    server = await startServer(ogai, SPECULATIVE, ['--model-name', MODEL, ...inputs]);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server, 'SIGTERM'); });

  it('equals ogai run, whole and streamed, alone and together', async () => {
    const body = { model: MODEL, prompt: [1, 2, 3, 4], max_tokens: 1, seed: 7 };  // its overrides: max_output_tokens, seed
    const whole = await client.completions.create(body);
    assert.equal(whole.choices[0].text, '1 31');
    assert.deepEqual(await ran(SPECULATIVE, 'request.tokens', [1, 2, 3, 4], 1, { seed: 7, inputs }), [1, 31]);
    const longer = { ...body, max_tokens: 3 };
    const want = (await ran(SPECULATIVE, 'request.tokens', [1, 2, 3, 4], 3, { seed: 7, inputs })).join(' ');
    const [a, b, s] = await Promise.all([client.completions.create(longer), client.completions.create(body),
                                         streamText(client, longer)]);
    assert.equal(a.choices[0].text, want);
    assert.equal(b.choices[0].text, '1 31');
    assert.equal(s.text, want);
  });
});
