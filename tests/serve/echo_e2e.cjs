// Completions `echo` through `ogai serve` with the real `openai` npm client on stories260k (what
// evaluation harnesses send to score a text): the response text starts with the prompt, and with
// `logprobs: N` the legacy logprobs cover the prompt tokens first (the first logprob and its top
// entry null) then the generated ones; the values equal `ogai generate --json --logprobs N
// --prompt-logprobs`; a prompt given as token ids works too; with n = 2 every choice echoes; echo with
// stream is a 400.
//   node echo_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
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
const PROMPT = 'Once upon a time, there was a little dog';

async function cli(prompt, tokens, top) {
  const { stdout } = await promisify(execFile)(ogai, ['generate', stories, '--prompt', prompt, '--max-new-tokens',
    String(tokens), '--temperature', '0', '--json', '--logprobs', String(top), '--prompt-logprobs'], { encoding: 'utf8' });
  return JSON.parse(stdout);
}

function close(a, b, where) { assert.ok(Math.abs(a - b) < 1e-5, `${where}: ${a} vs ${b}`); }

// The prompt part of `lp` (its first n tokens) against the CLI's prompt entries.
function checkPromptPart(lp, ours, top) {
  const n = ours.prompt_ids.length;
  assert.equal(lp.token_logprobs[0], null);
  assert.equal(lp.top_logprobs[0], null);
  for (let i = 1; i < n; ++i) {
    close(lp.token_logprobs[i], ours.prompt_logprobs[i].logprob, `prompt position ${i}`);
    const alternatives = Object.values(lp.top_logprobs[i]);
    assert.ok(alternatives.length >= 1 && alternatives.length <= top, `prompt position ${i}: top size`);
    close(Math.max(...alternatives), ours.prompt_logprobs[i].top[0].logprob, `prompt position ${i} top`);
  }
}

function checkOffsets(lp) {
  let offset = 0;
  lp.tokens.forEach((t, i) => {
    assert.equal(lp.text_offset[i], offset, `text_offset ${i}`);
    offset += [...t].length;
  });
}

describe('completions echo through ogai serve (stories260k)', () => {
  let server;
  let client;
  before(async () => {
    server = await startServer(ogai, stories, []);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    const end = await stopServer(server, 'SIGTERM');
    assert.equal(end.code, 0, end.stderr);
  });

  it('max_tokens 0: the prompt scored, nothing generated', async () => {
    const r = await client.completions.create({ model: MODEL, prompt: PROMPT, echo: true, logprobs: 3, max_tokens: 0 });
    const choice = r.choices[0];
    assert.equal(choice.text, PROMPT);
    assert.equal(choice.finish_reason, 'length');
    assert.equal(r.usage.completion_tokens, 0);
    const ours = await cli(PROMPT, 0, 3);
    const lp = choice.logprobs;
    assert.equal(lp.tokens.length, ours.prompt_ids.length);
    assert.equal(r.usage.prompt_tokens, ours.prompt_ids.length);
    assert.equal(lp.tokens.join(''), PROMPT);
    checkPromptPart(lp, ours, 3);
    checkOffsets(lp);
  });

  it('echo + generation: the prompt part, then the generated part', async () => {
    const r = await client.completions.create({ model: MODEL, prompt: PROMPT, echo: true, logprobs: 2, max_tokens: 6,
      temperature: 0 });
    const choice = r.choices[0];
    const ours = await cli(PROMPT, 6, 2);
    assert.equal(choice.text, PROMPT + ours.text);
    const lp = choice.logprobs;
    const n = ours.prompt_ids.length;
    assert.equal(lp.tokens.length, n + 6);
    assert.equal(lp.tokens.join(''), choice.text);
    checkPromptPart(lp, ours, 2);
    for (let i = 0; i < 6; ++i) close(lp.token_logprobs[n + i], ours.logprobs[i].logprob, `generated ${i}`);
    checkOffsets(lp);
    const plain = await client.completions.create({ model: MODEL, prompt: PROMPT, echo: true, max_tokens: 6,
      temperature: 0 });
    assert.equal(plain.choices[0].text, choice.text);
    assert.equal(plain.choices[0].logprobs, null);
  });

  it('a prompt given as token ids: tokens are the decoded pieces', async () => {
    const ours = await cli(PROMPT, 0, 1);
    const r = await client.completions.create({ model: MODEL, prompt: ours.prompt_ids, echo: true, logprobs: 1,
      max_tokens: 0 });
    const choice = r.choices[0];
    assert.equal(choice.text, PROMPT);
    assert.equal(choice.logprobs.tokens.join(''), PROMPT);
    checkPromptPart(choice.logprobs, ours, 1);
  });

  it('echo with n = 2: each choice echoes the prompt and equals the solo request with seed + i', async () => {
    const body = { model: MODEL, prompt: PROMPT, echo: true, logprobs: 2, max_tokens: 6, temperature: 1.0, seed: 9 };
    const r = await client.completions.create({ ...body, n: 2 });
    assert.equal(r.choices.length, 2);
    for (let i = 0; i < 2; i++) {
      const solo = (await client.completions.create({ ...body, seed: 9 + i })).choices[0];
      assert.equal(r.choices[i].index, i);
      assert.ok(r.choices[i].text.startsWith(PROMPT));
      assert.equal(r.choices[i].text, solo.text, `choice ${i}`);
      const [lp, want] = [r.choices[i].logprobs, solo.logprobs];  // other rows in the batch: equal to the last bits or so
      assert.deepEqual(lp.tokens, want.tokens, `choice ${i} tokens`);
      assert.deepEqual(lp.text_offset, want.text_offset, `choice ${i} offsets`);
      lp.token_logprobs.forEach((v, k) => (k === 0 ? assert.equal(v, null) : close(v, want.token_logprobs[k], `choice ${i} token ${k}`)));
      lp.top_logprobs.slice(1).forEach((top, k) => {
        assert.deepEqual(Object.keys(top).sort(), Object.keys(want.top_logprobs[k + 1]).sort(), `choice ${i} top ${k + 1}`);
        for (const t of Object.keys(top)) close(top[t], want.top_logprobs[k + 1][t], `choice ${i} top ${k + 1}`);
      });
    }
    assert.notEqual(r.choices[0].text, r.choices[1].text);
  });

  it('echo with stream is a 400 naming echo', async () => {
    await assert.rejects(
      client.completions.create({ model: MODEL, prompt: 'a', echo: true, max_tokens: 2, stream: true }),
      (e) => { assert.equal(e.status, 400); assert.equal(e.param, 'echo'); return true; });
  });
});
