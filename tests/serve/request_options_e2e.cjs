// How `ogai serve` reads requests, through the real `openai` npm client and raw HTTP:
// unknown fields are named in one warning per request (the fields other branches of the server
// read count as known), or refused with a 400 naming them under --strict-requests;
// --max-tokens-default caps a request that sets no limit; chat `add_generation_prompt: false` and
// `continue_final_message` render the prompt `ogai template` renders (tiny-e2b's Gemma-style
// template; compared token for token through a completion from the same ids); --chat-template
// FILE replaces the package's template in `serve` and in `generate --chat`.
//   node request_options_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('child_process');
const { promisify } = require('util');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer, postJson } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const tinyE2b = path.join(process.env.OGAI_SOURCE_DIR, 'tests/data/packages/tiny-e2b');
const MODEL = 'stories260k';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai-request-options-'));
const TEMPLATE = path.join(tmp, 'title.jinja');
fs.writeFileSync(TEMPLATE, "{{- bos_token -}}Title: {% for m in messages %}{{ m['content'] }}{% endfor %}.");

async function run(args) {
  const { stdout } = await promisify(execFile)(ogai, args, { encoding: 'utf8' });
  return stdout;
}

// What `ogai template PKG` renders for `messages` with `flags`, as token ids (no special tokens
// added: the template wrote them).
async function templateIds(pkg, messages, flags) {
  const file = path.join(tmp, `messages-${Math.random().toString(16).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(messages));
  const text = await run(['template', pkg, '--messages', file, ...flags]);
  return JSON.parse(await run(['tokenize', pkg, '--no-special', '--text', text]));
}

async function logLine(server, re) {
  for (let i = 0; i < 100; ++i) {
    const line = server.stderr().split('\n').find((l) => re.test(l));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`no log line matches ${re}:\n${server.stderr()}`);
}

describe('request options', () => {
  let lenient;  // stories260k --chat-template FILE
  let strict;   // stories260k --strict-requests --max-tokens-default 3
  let tiny;     // tiny-e2b
  const client = (s) => new OpenAI({ baseURL: s.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  before(async () => {
    [lenient, strict, tiny] = await Promise.all([
      startServer(ogai, stories, ['--chat-template', TEMPLATE]),
      startServer(ogai, stories, ['--strict-requests', '--max-tokens-default', '3']),
      startServer(ogai, tinyE2b, ['--model-name', 'tiny']),
    ]);
  });
  after(async () => {
    for (const s of [lenient, strict, tiny]) {
      const end = await stopServer(s, 'SIGTERM');
      assert.equal(end.code, 0, end.stderr);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('warns once per request naming the unknown fields, and answers', async () => {
    const r = await postJson(lenient.url + '/v1/chat/completions', { model: MODEL, max_tokens: 2,
      messages: [{ role: 'user', content: 'Lily' }], zeta_field: 1, alpha_field: true });
    assert.equal(r.status, 200, r.text);
    const id = r.headers.get('x-request-id');
    const line = await logLine(lenient, new RegExp(`\\[warn\\] (\\[[^\\]]+\\] )?serve: request ${id} `));
    assert.match(line, /POST \/v1\/chat\/completions\): ignoring unknown fields: alpha_field, zeta_field$/);
    assert.equal(lenient.stderr().split('\n').filter((l) => l.includes(id) && l.includes('[warn]')).length, 1);
  });

  it('knows the fields the rest of the server reads (tools, tool_choice, chat_template_kwargs, ...)', async () => {
    const body = { model: MODEL, max_tokens: 2, messages: [{ role: 'user', content: 'Lily' }], tools: [],
      tool_choice: 'none', parallel_tool_calls: false, chat_template_kwargs: {}, user: 'u', stream: false };
    const r = await postJson(strict.url + '/v1/chat/completions', body);
    assert.equal(r.status, 200, r.text);
    const c = await postJson(strict.url + '/v1/completions', { model: MODEL, prompt: 'Once', max_tokens: 2, echo: false,
                                                               logprobs: null, best_of: 1, user: 'u' });
    assert.equal(c.status, 200, c.text);
  });

  it('--strict-requests refuses unknown fields with a 400 naming them, on every generation route', async () => {
    const routes = [['/v1/chat/completions', { messages: [{ role: 'user', content: 'Lily' }] }],
                    ['/v1/completions', { prompt: 'Once' }], ['/v1/responses', { input: 'Once' }]];
    for (const [route, body] of routes) {
      const r = await postJson(strict.url + route, { model: MODEL, ...body, frobnicate: 1, banana: 2 });
      assert.equal(r.status, 400, route);
      assert.equal(r.json.error.type, 'invalid_request_error');
      assert.equal(r.json.error.code, 'unknown_field');
      assert.equal(r.json.error.param, 'banana');
      assert.match(r.json.error.message, /unknown fields: banana, frobnicate/);
    }
    const ok = await postJson(strict.url + '/v1/completions', { model: MODEL, prompt: 'Once', max_tokens: 1 });
    assert.equal(ok.status, 200, 'the server keeps serving');
  });

  it('--max-tokens-default caps a request that sets no limit, and only that', async () => {
    const messages = [{ role: 'user', content: 'Once upon a time' }];
    const c = client(strict);
    const capped = await c.chat.completions.create({ model: MODEL, messages, ignore_eos: true });
    assert.equal(capped.usage.completion_tokens, 3);
    assert.equal(capped.choices[0].finish_reason, 'length');
    const set = await c.chat.completions.create({ model: MODEL, messages, ignore_eos: true, max_tokens: 5 });
    assert.equal(set.usage.completion_tokens, 5);
    const text = await c.completions.create({ model: MODEL, prompt: 'Once', ignore_eos: true });
    assert.equal(text.usage.completion_tokens, 3);
    const resp = await c.responses.create({ model: MODEL, input: 'Once' });
    assert.ok(resp.usage.output_tokens >= 1 && resp.usage.output_tokens <= 3, JSON.stringify(resp.usage));
  });

  it('add_generation_prompt: false renders what `ogai template` renders without the flag', async () => {
    const messages = [{ role: 'user', content: 'hello world' }];
    const open = await client(tiny).chat.completions.create({ model: 'tiny', messages, max_tokens: 1 });
    const closed = await client(tiny).chat.completions.create({ model: 'tiny', messages, max_tokens: 1,
                                                                add_generation_prompt: false });
    const withPrompt = await templateIds(tinyE2b, messages, ['--add-generation-prompt']);
    const without = await templateIds(tinyE2b, messages, []);
    assert.notEqual(withPrompt.length, without.length);
    assert.equal(open.usage.prompt_tokens, withPrompt.length);
    assert.equal(closed.usage.prompt_tokens, without.length);
  });

  it('continue_final_message ends the prompt inside the last message, as `ogai template --continue-final-message`', async () => {
    const messages = [{ role: 'user', content: 'hello world' }, { role: 'assistant', content: 'The answer is' }];
    const ids = await templateIds(tinyE2b, messages, ['--continue-final-message']);
    const full = await templateIds(tinyE2b, messages, []);
    assert.ok(ids.length < full.length, 'the end-of-turn tokens are cut');
    assert.deepEqual(ids, full.slice(0, ids.length));
    const chat = await client(tiny).chat.completions.create({ model: 'tiny', messages, max_tokens: 8, temperature: 0,
                                                              continue_final_message: true });
    const same = await client(tiny).completions.create({ model: 'tiny', prompt: ids, max_tokens: 8, temperature: 0 });
    assert.equal(chat.usage.prompt_tokens, ids.length);
    assert.equal(chat.choices[0].message.content, same.choices[0].text);
    const both = await postJson(tiny.url + '/v1/chat/completions', { model: 'tiny', messages,
      continue_final_message: true, add_generation_prompt: true });
    assert.equal(both.status, 400);
    assert.equal(both.json.error.param, 'continue_final_message');
  });

  it('--chat-template FILE replaces the package template in serve and in generate --chat', async () => {
    const messages = [{ role: 'user', content: 'Lily' }];
    const chat = await client(lenient).chat.completions.create({ model: MODEL, messages, max_tokens: 12, temperature: 0 });
    // The override's text with the package's bos_token, tokenized as the server does (no special
    // tokens added), then completed from those ids.
    const bos = JSON.parse(fs.readFileSync(path.join(stories, 'tokenizer_config.json'), 'utf8')).bos_token;
    const ids = JSON.parse(await run(['tokenize', stories, '--no-special', '--text', `${bos}Title: Lily.`]));
    const same = await client(lenient).completions.create({ model: MODEL, prompt: ids, max_tokens: 12, temperature: 0 });
    assert.equal(chat.usage.prompt_tokens, ids.length);
    assert.equal(chat.choices[0].message.content, same.choices[0].text);
    const cli = JSON.parse(await run(['generate', stories, '--chat', '--chat-template', TEMPLATE, '--prompt', 'Lily',
                                      '--max-new-tokens', '12', '--temperature', '0', '--json']));
    assert.deepEqual(cli.prompt_ids, ids);
    assert.equal(cli.text, chat.choices[0].message.content);
    const plain = JSON.parse(await run(['generate', stories, '--chat', '--prompt', 'Lily', '--max-new-tokens', '1',
                                        '--json']));
    assert.notDeepEqual(plain.prompt_ids, cli.prompt_ids, 'the package template differs');
  });
});
