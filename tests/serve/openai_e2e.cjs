// `ogai serve` through the real `openai` npm client: completions and chat, whole and streamed, on
// stories260k (greedy output must equal the model card's golden text) and on the tiny-e2b fixture
// (a Gemma-style chat template; must equal `ogai generate --chat`); sampling options must give
// what `ogai generate` gives with the same flags; 16 concurrent requests must each equal the same
// request run alone.
//   node openai_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('child_process');
const { promisify } = require('util');
const fs = require('fs');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const harness = require('./server_harness.cjs');
const { startServer, stopServer, http } = harness;

// The current value of one series of the server's /metrics.
async function metric(server, series) {
  return harness.metric((await http(server.url + '/metrics')).text, series);
}

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const tinyE2b = path.join(process.env.OGAI_SOURCE_DIR, 'tests/data/packages/tiny-e2b');

// The golden greedy continuation of "Once upon a time" (60 tokens) from the model card.
function goldenText() {
  const card = fs.readFileSync(path.join(process.env.OGAI_SHARED_DIR, 'models/stories260k/README.md'), 'utf8');
  const m = /which decode to: (".*")\s*$/m.exec(card);
  assert.ok(m, 'the model card has no golden text');
  return JSON.parse(m[1]);
}

// `ogai generate PKG --json` with the given flags. Asynchronous: a synchronous child would block the
// event loop, so the client's pooled keep-alive connection could outlive the server's idle timeout
// unnoticed and the next request would go out on a closed socket.
// Greedy unless the flags set a temperature, as the tests' servers (server_harness.cjs) are.
async function cliGenerate(pkg, prompt, flags) {
  const greedy = flags.includes('--temperature') ? [] : ['--temperature', '0'];
  const { stdout } = await promisify(execFile)(ogai, ['generate', pkg, '--prompt', prompt, '--json', ...greedy, ...flags],
                                               { encoding: 'utf8' });
  return JSON.parse(stdout);
}

async function streamText(stream) {
  let text = '';
  let finish = null;
  let usage = null;
  let chunks = 0;
  let textChunks = 0;
  let firstTextAt = null;
  for await (const chunk of stream) {
    chunks++;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    const piece = choice.delta ? (choice.delta.content ?? '') : choice.text;
    if (piece) {
      textChunks++;
      firstTextAt ??= performance.now();
    }
    text += piece;
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  return { text, finish, usage, chunks, textChunks, firstTextAt, endAt: performance.now() };
}

describe('ogai serve on stories260k', () => {
  let server;
  let client;
  const golden = goldenText();
  before(async () => {
    server = await startServer(ogai, stories, ['--max-concurrent', '16']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    const end = await stopServer(server, 'SIGINT');
    assert.equal(end.code, 0, end.stderr);
    assert.match(end.stderr, /SIGINT received, stopping/);
  });

  it('lists the model', async () => {
    const models = [];
    for await (const m of client.models.list()) models.push(m.id);
    assert.deepEqual(models, ['stories260k']);
    assert.equal((await client.models.retrieve('stories260k')).context_length, 512);
    assert.equal((await http(server.url + '/health')).json.status, 'ok');
  });

  it('completes greedily to the golden text', async () => {
    const r = await client.completions.create({ model: 'stories260k', prompt: 'Once upon a time', max_tokens: 60, temperature: 0 });
    assert.equal(r.object, 'text_completion');
    assert.match(r.id, /^cmpl-/);
    assert.equal(r.model, 'stories260k');
    assert.equal(r.choices[0].text, golden);
    assert.equal(r.choices[0].finish_reason, 'length');
    assert.deepEqual(r.usage, { prompt_tokens: 5, completion_tokens: 60, total_tokens: 65 });
  });

  it('streams the same completion, with usage', async () => {
    const s = await streamText(await client.completions.create({
      model: 'stories260k', prompt: 'Once upon a time', max_tokens: 60, stream: true, stream_options: { include_usage: true } }));
    assert.equal(s.text, golden);
    assert.equal(s.finish, 'length');
    assert.deepEqual(s.usage, { prompt_tokens: 5, completion_tokens: 60, total_tokens: 65 });
  });

  // What streaming promises, independent of how a loaded machine coalesces tokens into events:
  // the first text arrives while the response is still going, and the text comes in several events.
  it('streams text while it is generated, in more than one event', async (t) => {
    const s = await streamText(await client.completions.create({
      model: 'stories260k', prompt: 'Once upon a time', max_tokens: 400, ignore_eos: true, stream: true }));
    t.diagnostic(`${s.textChunks} text events; first text ${(s.endAt - s.firstTextAt).toFixed(1)} ms before the end`);
    assert.ok(s.textChunks > 1, `the text came in ${s.textChunks} event(s): not streamed`);
    assert.ok(s.firstTextAt < s.endAt, 'no text arrived before the response ended');
  });

  it('chats through the template to the same text, whole and streamed', async () => {
    const messages = [{ role: 'user', content: 'Once upon a time' }];
    const r = await client.chat.completions.create({ model: 'stories260k', messages, max_completion_tokens: 60 });
    assert.equal(r.object, 'chat.completion');
    assert.equal(r.choices[0].message.role, 'assistant');
    assert.equal(r.choices[0].message.content, golden);
    assert.equal(r.usage.prompt_tokens, 5);
    const s = await streamText(await client.chat.completions.create({ model: 'stories260k', messages, max_tokens: 60, stream: true }));
    assert.equal(s.text, golden);
    assert.equal(s.finish, 'length');
    assert.equal(s.usage, null);  // not asked for
  });

  it('stops on a stop string (finish_reason stop) and on EOS (stop)', async () => {
    const r = await client.completions.create({ model: 'stories260k', prompt: 'Once upon a time', max_tokens: 60, stop: ['Lily'] });
    assert.equal(r.choices[0].text, golden.slice(0, golden.indexOf('Lily')));
    assert.equal(r.choices[0].finish_reason, 'stop');
    const s = await streamText(await client.completions.create({ model: 'stories260k', prompt: 'Once upon a time', max_tokens: 60, stop: 'Lily', stream: true }));
    assert.equal(s.text, r.choices[0].text);
    assert.equal(s.finish, 'stop');
    // EOS (id 2) forced by logit_bias: the engine's "eos" is OpenAI's "stop".
    const eos = await client.completions.create({ model: 'stories260k', prompt: 'Once upon a time', max_tokens: 60, logit_bias: { 2: 100 } });
    assert.equal(eos.choices[0].text, '');
    assert.equal(eos.choices[0].finish_reason, 'stop');
    assert.equal(eos.usage.completion_tokens, 1);
  });

  it('applies every sampling option as ogai generate does', async () => {
    const cases = [
      [{ temperature: 0.8, top_p: 0.9, seed: 7 }, ['--temperature', '0.8', '--top-p', '0.9', '--seed', '7']],
      [{ temperature: 1.2, top_k: 20, min_p: 0.05, seed: 3 }, ['--temperature', '1.2', '--top-k', '20', '--min-p', '0.05', '--seed', '3']],
      [{ repetition_penalty: 1.3, frequency_penalty: 0.5, presence_penalty: 0.4 },
       ['--repetition-penalty', '1.3', '--frequency-penalty', '0.5', '--presence-penalty', '0.4']],
    ];
    for (const [fields, flags] of cases) {
      const r = await client.completions.create({ model: 'stories260k', prompt: 'Lily and Ben', max_tokens: 40, ...fields });
      const cli = await cliGenerate(stories, 'Lily and Ben', ['--max-new-tokens', '40', ...flags]);
      assert.equal(r.choices[0].text, cli.text, JSON.stringify(fields));
      assert.equal(r.usage.completion_tokens, cli.ids.length);
    }
    // logit_bias: forbid the golden first token (432, ",") and the text changes.
    const biased = await client.completions.create({ model: 'stories260k', prompt: 'Once upon a time', max_tokens: 5, logit_bias: { 432: -100 } });
    assert.ok(!biased.choices[0].text.startsWith(','), biased.choices[0].text);
  });

  it('answers 16 concurrent requests each as if alone', async () => {
    const requests = [];
    for (let i = 0; i < 16; i++) {
      const prompt = ['Once upon a time', 'Lily', 'The cat', 'Tom had a big'][i % 4];
      const chat = i % 3 === 0;
      const base = { model: 'stories260k', max_tokens: 30 + i, temperature: 0.9, seed: 100 + i, stream: i % 2 === 0 };
      requests.push(chat ? { chat, body: { ...base, messages: [{ role: 'user', content: prompt }] } } : { chat, body: { ...base, prompt } });
    }
    const run = async ({ chat, body }) => {
      const api = chat ? client.chat.completions : client.completions;
      if (body.stream) return (await streamText(await api.create(body))).text;
      const r = await api.create(body);
      return chat ? r.choices[0].message.content : r.choices[0].text;
    };
    const alone = [];
    for (const r of requests) alone.push(await run(r));
    const before = await metric(server, 'ogai_engine_decoded_rows_total');
    const steps = await metric(server, 'ogai_engine_steps_total');
    const together = await Promise.all(requests.map(run));
    assert.deepEqual(together, alone);
    assert.ok(new Set(alone).size > 8, 'different seeds and prompts should give different texts');
    // They ran as rows of one batch: more rows than decode runs while they were together.
    const rows = (await metric(server, 'ogai_engine_decoded_rows_total')) - before;
    const runs = (await metric(server, 'ogai_engine_steps_total')) - steps;
    assert.ok(rows / runs >= 2, `mean batch ${rows / runs} (${rows} rows in ${runs} runs): not batched`);
    assert.ok((await metric(server, 'ogai_engine_max_batch')) >= 4);
    assert.ok((await metric(server, 'ogai_prefix_cache_hits_total')) >= 1, 'repeated prompts should hit the prefix cache');
  });

  it('answers n=3 with three choices, choice i as a solo request with seed + i', async () => {
    const body = { model: 'stories260k', prompt: 'Once upon a time', max_tokens: 20, temperature: 1.0, seed: 7 };
    const r = await client.completions.create({ ...body, n: 3 });
    assert.equal(r.choices.length, 3);
    assert.deepEqual(r.choices.map((c) => c.index), [0, 1, 2]);
    for (let i = 0; i < 3; i++) {
      const solo = await client.completions.create({ ...body, seed: 7 + i });
      assert.equal(r.choices[i].text, solo.choices[0].text, `choice ${i}`);
    }
    assert.ok(new Set(r.choices.map((c) => c.text)).size >= 2, 'choices should differ');
    const chat = await client.chat.completions.create({ model: 'stories260k', messages: [{ role: 'user', content: 'Lily' }],
                                                        max_tokens: 10, temperature: 1.0, seed: 1, n: 2 });
    assert.equal(chat.choices.length, 2);
    assert.ok(chat.usage.completion_tokens > 0 && chat.usage.completion_tokens <= 20, JSON.stringify(chat.usage));
  });
});

describe('ogai serve on tiny-e2b (Gemma-style chat template)', () => {
  let server;
  let client;
  before(async () => {
    server = await startServer(ogai, tinyE2b, ['--model-name', 'tiny']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    const end = await stopServer(server);
    assert.equal(end.code, 0, end.stderr);
  });

  it('chats like ogai generate --chat', async () => {
    const messages = [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'hello world' }];
    const cli = await cliGenerate(tinyE2b, 'hello world', ['--chat', '--system', 'You are terse.', '--max-new-tokens', '12']);
    const r = await client.chat.completions.create({ model: 'tiny', messages, max_tokens: 12 });
    assert.equal(r.model, 'tiny');
    assert.equal(r.choices[0].message.content, cli.text);
    assert.equal(r.usage.prompt_tokens, cli.prompt_ids.length);
    assert.equal(r.usage.completion_tokens, cli.ids.length);
    const s = await streamText(await client.chat.completions.create({ model: 'tiny', messages, max_tokens: 12, stream: true,
                                                                      stream_options: { include_usage: true } }));
    assert.equal(s.text, cli.text);
    assert.equal(s.usage.prompt_tokens, cli.prompt_ids.length);
  });

  it('completes like ogai generate', async () => {
    const cli = await cliGenerate(tinyE2b, 'hello world', ['--max-new-tokens', '10']);
    const r = await client.completions.create({ model: 'tiny', prompt: 'hello world', max_tokens: 10 });
    assert.equal(r.choices[0].text, cli.text);
    assert.equal(r.usage.prompt_tokens, cli.prompt_ids.length);
    const s = await streamText(await client.completions.create({ model: 'tiny', prompt: 'hello world', max_tokens: 10, stream: true }));
    assert.equal(s.text, cli.text);
  });

  it('refuses another model name with 404', async () => {
    await assert.rejects(client.chat.completions.create({ model: 'stories260k', messages: [{ role: 'user', content: 'x' }] }),
                         (e) => e.status === 404 && e.code === 'model_not_found');
  });
});
