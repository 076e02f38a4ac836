// Log-probabilities through `ogai serve` with the real `openai` npm client on stories260k: chat
// (`logprobs` + `top_logprobs`, OpenAI's content shape) and completions (legacy `logprobs: N`),
// whole and streamed. The streamed logprobs concatenated must equal the whole response's, the
// tokens joined must equal the (ASCII) text, the values must equal `ogai generate --json
// --logprobs`, and bad values must be 400s naming the field.
//   node logprobs_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('child_process');
const { promisify } = require('util');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const MODEL = 'stories260k';
const PROMPT = 'Once upon a time';

// Asynchronous so the event loop (and the client's keep-alive bookkeeping) keeps running meanwhile.
// Greedy unless `extra` sets a temperature, as the tests' servers (server_harness.cjs) are.
async function cliLogprobs(prompt, tokens, top, extra = []) {
  const greedy = extra.includes('--temperature') ? [] : ['--temperature', '0'];
  const { stdout } = await promisify(execFile)(ogai, ['generate', stories, '--prompt', prompt, '--max-new-tokens',
    String(tokens), '--json', '--logprobs', String(top), ...greedy, ...extra], { encoding: 'utf8' });
  return JSON.parse(stdout);
}

function checkChatEntry(e, top) {
  assert.equal(typeof e.token, 'string');
  assert.ok(e.logprob <= 0, `logprob ${e.logprob}`);
  assert.deepEqual(e.bytes, [...Buffer.from(e.token, 'utf8')]);
  assert.equal(e.top_logprobs.length, top);
  for (let k = 0; k < e.top_logprobs.length; ++k) {
    const t = e.top_logprobs[k];
    assert.deepEqual(Object.keys(t).sort(), ['bytes', 'logprob', 'token']);
    if (k > 0) assert.ok(e.top_logprobs[k - 1].logprob >= t.logprob, 'top_logprobs not sorted');
  }
}

async function collect(stream) {
  let text = '';
  const chatEntries = [];
  const legacy = { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] };
  let finish = null;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    if (!choice) continue;
    const piece = choice.delta ? (choice.delta.content ?? '') : choice.text;
    text += piece;
    if (choice.finish_reason) finish = choice.finish_reason;
    if (!piece) { assert.equal(choice.logprobs, null, 'a chunk without text carries logprobs'); continue; }
    assert.ok(choice.logprobs, 'a text chunk without logprobs');
    if (choice.delta) {
      assert.equal(choice.logprobs.refusal, null);
      chatEntries.push(...choice.logprobs.content);
    } else {
      for (const key of Object.keys(legacy)) legacy[key].push(...choice.logprobs[key]);
    }
  }
  return { text, chatEntries, legacy, finish };
}

describe('logprobs through ogai serve (stories260k)', () => {
  let server;
  let client;
  before(async () => {
    // Without the prefix cache: these tests compare logprobs across requests (and with the CLI)
    // exactly, and a cache hit prefills the prompt's last token alone, which moves logprobs in
    // their last float digits (continuous_batch_test checks hits against misses within 1e-4).
    server = await startServer(ogai, stories, ['--max-concurrent', '2', '--prefix-cache-mib', '0']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    const end = await stopServer(server, 'SIGTERM');
    assert.equal(end.code, 0, end.stderr);
  });

  it('chat: whole and streamed agree, tokens join to the text', async () => {
    const request = { model: MODEL, messages: [{ role: 'user', content: PROMPT }], max_tokens: 24, temperature: 0,
      logprobs: true, top_logprobs: 3 };
    const whole = await client.chat.completions.create(request);
    const choice = whole.choices[0];
    const content = choice.logprobs.content;
    assert.equal(choice.logprobs.refusal, null);
    assert.ok(content.length > 0 && content.length <= whole.usage.completion_tokens);
    content.forEach((e) => checkChatEntry(e, 3));
    for (const e of content) assert.equal(e.top_logprobs[0].logprob, e.logprob, 'greedy picks the top token');
    const text = choice.message.content;
    assert.match(text, /^[\x00-\x7f]+$/, 'the test needs ASCII text');
    assert.equal(content.map((e) => e.token).join(''), text);
    const streamed = await collect(await client.chat.completions.create({ ...request, stream: true }));
    assert.equal(streamed.text, text);
    assert.deepEqual(streamed.chatEntries, content);
    const zero = await client.chat.completions.create({ ...request, top_logprobs: 0 });
    zero.choices[0].logprobs.content.forEach((e) => checkChatEntry(e, 0));
    const off = await client.chat.completions.create({ ...request, logprobs: undefined, top_logprobs: undefined });
    assert.equal(off.choices[0].logprobs, null);
  });

  it('completions: legacy shape, equal to ogai generate --logprobs, whole equals streamed', async () => {
    const request = { model: MODEL, prompt: PROMPT, max_tokens: 30, temperature: 0, logprobs: 2 };
    const whole = await client.completions.create(request);
    const choice = whole.choices[0];
    const lp = choice.logprobs;
    const n = lp.tokens.length;
    assert.equal(n, 30);  // no stop, no EOS: every token is reported
    for (const key of ['token_logprobs', 'top_logprobs', 'text_offset']) assert.equal(lp[key].length, n, key);
    assert.equal(lp.tokens.join(''), choice.text);
    let offset = 0;
    for (let i = 0; i < n; ++i) {
      assert.equal(lp.text_offset[i], offset);
      offset += [...lp.tokens[i]].length;
      const top = Object.entries(lp.top_logprobs[i]);
      assert.ok(top.length >= 1 && top.length <= 2);
      assert.equal(lp.top_logprobs[i][lp.tokens[i]], lp.token_logprobs[i], 'greedy: the token is its top entry');
    }
    const cli = await cliLogprobs(PROMPT, 30, 2);
    assert.equal(cli.logprobs.length, n);
    for (let i = 0; i < n; ++i) assert.ok(Math.abs(cli.logprobs[i].logprob - lp.token_logprobs[i]) < 1e-6, `position ${i}`);
    const streamed = await collect(await client.completions.create({ ...request, stream: true }));
    assert.equal(streamed.text, choice.text);
    assert.deepEqual(streamed.legacy, lp);
  });

  // ", there was a little girl named Lily.": " named" releases its " " (its "named" is held as a
  // possible stop string) and is reported; " Lily" completes the stop string and is not.
  it('a stop string: tokens whose text was never released are not reported, whole equals streamed', async () => {
    const request = { model: MODEL, prompt: PROMPT, max_tokens: 40, temperature: 0, logprobs: 1, stop: ['named Lily'] };
    const whole = await client.completions.create(request);
    const choice = whole.choices[0];
    assert.equal(choice.finish_reason, 'stop');
    assert.equal(choice.text, ', there was a little girl ');
    const lp = choice.logprobs;
    assert.equal(lp.tokens.length, whole.usage.completion_tokens - 1);
    assert.equal(lp.tokens.join(''), choice.text + 'named');
    const streamed = await collect(await client.completions.create({ ...request, stream: true }));
    assert.equal(streamed.text, choice.text);
    assert.deepEqual(streamed.legacy, lp);
  });

  it('sampling reports the raw-logit values of ogai generate', async () => {
    const whole = await client.completions.create({ model: MODEL, prompt: 'Lily', max_tokens: 12, temperature: 0.7,
      seed: 5, logprobs: 0 });
    const cli = await cliLogprobs('Lily', 12, 0, ['--temperature', '0.7', '--seed', '5']);
    const lp = whole.choices[0].logprobs;
    assert.equal(whole.choices[0].text, cli.text);
    assert.equal(lp.token_logprobs.length, cli.logprobs.length);
    lp.token_logprobs.forEach((v, i) => assert.ok(Math.abs(v - cli.logprobs[i].logprob) < 1e-6, `position ${i}`));
    lp.top_logprobs.forEach((t) => assert.deepEqual(t, {}));
  });

  it('bad values are 400s naming the field', async () => {
    const chat = { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 };
    const cases = [
      ['top_logprobs', () => client.chat.completions.create({ ...chat, top_logprobs: 2 })],
      ['top_logprobs', () => client.chat.completions.create({ ...chat, logprobs: true, top_logprobs: 21 })],
      ['top_logprobs', () => client.chat.completions.create({ ...chat, logprobs: true, top_logprobs: -1 })],
      ['logprobs', () => client.chat.completions.create({ ...chat, logprobs: 3 })],
      ['logprobs', () => client.completions.create({ model: MODEL, prompt: 'a', logprobs: 6 })],
      ['echo', () => client.completions.create({ model: MODEL, prompt: 'a', logprobs: 1, echo: true, stream: true })],
      ['max_tokens', () => client.completions.create({ model: MODEL, prompt: 'a', echo: true, max_tokens: -1 })],
      ['max_tokens', () => client.completions.create({ model: MODEL, prompt: 'a', max_tokens: 0 })],
    ];
    for (const [param, call] of cases) {
      await assert.rejects(call, (e) => {
        assert.equal(e.status, 400, `${param}: ${e.message}`);
        assert.equal(e.param, param);
        return true;
      });
    }
  });
});
