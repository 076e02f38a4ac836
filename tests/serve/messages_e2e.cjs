// Anthropic's Messages API (POST /v1/messages, /v1/messages/count_tokens) through `ogai serve`,
// driven by the official `@anthropic-ai/sdk` client, on tiny-e2b packaged with the shared Qwen2.5
// template (hermes tool calls) and the SmolLM3 one (reasoning). Checks: the whole message and its
// greedy text equal to the same conversation through /v1/chat/completions (the `openai` client);
// the streamed events in Anthropic's order, their text deltas joined = the whole text, the SDK's
// own accumulation = the whole message; forced tool use (tool_choice tool / any) gives tool_use
// blocks whose input validates against input_schema (python3-jsonschema), stop_reason tool_use,
// whole and streamed alike; a tool_result turn continues the conversation as the chat API would;
// stop_sequences -> stop_reason stop_sequence; max_tokens -> stop_reason max_tokens; count_tokens
// = usage.input_tokens; thinking reaches the template and reasoning comes back as thinking
// blocks; errors (missing max_tokens, a bad role, unsupported blocks, an unknown model, a wrong
// x-api-key) in Anthropic's error shape with the usual statuses.
//   node messages_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const peer = require('../peers/peers.cjs');
const Anthropic = peer('@anthropic-ai/sdk');
const { OpenAI } = peer('openai');
const { startServer, stopServer, postJson } = require('./server_harness.cjs');

const ogai = process.argv[2];
const kServeFlags = ['--idle-timeout', '120'];
const { packageWith, tiny } = require('./tool_package.cjs');


const weather = {
  name: 'get_weather', description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string', maxLength: 12 },
                                                unit: { enum: ['celsius', 'fahrenheit'] } },
                  required: ['city', 'unit'], additionalProperties: false },
};
const add = {
  name: 'add', description: 'Adds two numbers',
  input_schema: { type: 'object', properties: { a: { type: 'integer', minimum: 0, maximum: 99 },
                                                b: { type: 'integer', minimum: 0, maximum: 99 } },
                  required: ['a', 'b'] },
};

function schemaErrors(schema, value) {
  const code = 'import json,sys,jsonschema\nd=json.load(sys.stdin)\n' +
    'print(json.dumps([e.message for e in jsonschema.Draft202012Validator(d["s"]).iter_errors(d["v"])]))';
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', code], { input: JSON.stringify({ s: schema, v: value }) }));
}

function checkToolUse(block, tools) {
  assert.equal(block.type, 'tool_use');
  assert.match(block.id, /^toolu_[A-Za-z0-9]{24}$/);
  const tool = tools.find((t) => t.name === block.name);
  assert.ok(tool, `unknown tool ${block.name}`);
  assert.equal(typeof block.input, 'object');
  assert.deepEqual(schemaErrors(tool.input_schema, block.input), [], JSON.stringify(block.input));
}

// The raw events of a streamed request, checked for Anthropic's order, and what they add up to.
async function collect(stream) {
  const events = [];
  for await (const e of stream) events.push(e);
  assert.equal(events[0].type, 'message_start');
  assert.equal(events.at(-1).type, 'message_stop');
  assert.equal(events.at(-2).type, 'message_delta');
  const blocks = [];
  let open = null;
  for (const e of events.slice(1, -2)) {
    if (e.type === 'ping') continue;
    if (e.type === 'content_block_start') {
      assert.equal(open, null, 'a block starts after the previous one stopped');
      assert.equal(e.index, blocks.length, 'blocks are numbered in order');
      open = { ...e.content_block, partial: '' };
      blocks.push(open);
    } else if (e.type === 'content_block_delta') {
      assert.ok(open && e.index === blocks.length - 1, 'a delta belongs to the open block');
      const d = e.delta;
      if (d.type === 'text_delta') open.text += d.text;
      else if (d.type === 'thinking_delta') open.thinking += d.thinking;
      else if (d.type === 'input_json_delta') open.partial += d.partial_json;
      else assert.fail(`unexpected delta ${d.type}`);
    } else if (e.type === 'content_block_stop') {
      assert.ok(open && e.index === blocks.length - 1);
      if (open.type === 'tool_use') open.input = JSON.parse(open.partial || '{}');
      delete open.partial;
      open = null;
    } else {
      assert.fail(`unexpected event ${e.type}`);
    }
  }
  assert.equal(open, null, 'every block stopped');
  return { events, blocks, start: events[0].message, delta: events.at(-2) };
}

const withoutIds = (blocks) => blocks.map(({ id, ...rest }) => rest);
const text = (message) => message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');

async function apiError(promise) {
  try {
    await promise;
  } catch (e) {
    if (e instanceof Anthropic.APIError) return e;
    throw e;
  }
  assert.fail('the request should have failed');
}

describe('/v1/messages through @anthropic-ai/sdk (Qwen2.5 template)', () => {
  let server;
  let client;
  let openai;
  let tmp;
  const model = 'qwen2';
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai_messages_'));
    server = await startServer(ogai, packageWith('qwen2.5.tokenizer_config.json', tmp), ['--model-name', model, ...kServeFlags]);
    client = new Anthropic({ baseURL: server.url, apiKey: 'unused', maxRetries: 0 });
    openai = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); fs.rmSync(tmp, { recursive: true, force: true }); });

  const base = { model, max_tokens: 16, system: 'You are terse.',
                 messages: [{ role: 'user', content: 'Tell me a story.' }] };

  it('a whole message, its greedy text the same as /v1/chat/completions gives', async () => {
    const m = await client.messages.create({ ...base, temperature: 0 });
    assert.match(m.id, /^msg_[0-9a-f]{32}$/);
    assert.equal(m.type, 'message');
    assert.equal(m.role, 'assistant');
    assert.equal(m.model, model);
    assert.equal(m.content.length, 1);
    assert.equal(m.content[0].type, 'text');
    assert.ok(m.content[0].text.length > 0);
    assert.ok(['end_turn', 'max_tokens'].includes(m.stop_reason));
    assert.equal(m.stop_sequence, null);
    const chat = await openai.chat.completions.create({
      model, max_tokens: 16, temperature: 0,
      messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Tell me a story.' }] });
    assert.equal(text(m), chat.choices[0].message.content);
    assert.equal(m.usage.input_tokens, chat.usage.prompt_tokens);
    assert.equal(m.usage.output_tokens, chat.usage.completion_tokens);
    // system as text blocks and content as text blocks mean the same
    const blocks = await client.messages.create({ ...base, system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
                                                  messages: [{ role: 'user', content: [{ type: 'text', text: 'Tell me a story.' }] }] });
    assert.deepEqual(blocks.content, m.content);
    assert.equal(blocks.usage.input_tokens, m.usage.input_tokens);
  });

  it('streamed: events in order, text deltas join to the whole text, the SDK accumulates the same message', async () => {
    const whole = await client.messages.create(base);
    const s = await collect(await client.messages.create({ ...base, stream: true }));
    assert.match(s.start.id, /^msg_/);
    assert.deepEqual(s.start.content, []);
    assert.equal(s.start.usage.input_tokens, whole.usage.input_tokens);
    assert.deepEqual(s.blocks, whole.content);
    assert.equal(s.delta.delta.stop_reason, whole.stop_reason);
    assert.equal(s.delta.usage.output_tokens, whole.usage.output_tokens);
    const final = await client.messages.stream(base).finalMessage();
    assert.deepEqual(final.content, whole.content);
    assert.equal(final.stop_reason, whole.stop_reason);
    assert.equal(final.usage.output_tokens, whole.usage.output_tokens);
    // On the wire (the SDK drops pings): `event:` names its data's type, ping follows message_start.
    const raw = await postJson(server.url + '/v1/messages', { ...base, stream: true });
    assert.match(raw.headers.get('content-type'), /^text\/event-stream/);
    const frames = raw.text.trim().split('\n\n').map((f) => {
      const [, name, data] = /^event: (\w+)\ndata: (.*)$/s.exec(f);
      const json = JSON.parse(data);
      assert.equal(json.type, name);
      return name;
    });
    assert.deepEqual(frames.slice(0, 3), ['message_start', 'ping', 'content_block_start']);
    assert.deepEqual(frames.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
  });

  it('forced tool use: tool_use blocks whose input validates, stop_reason tool_use, whole and streamed', async () => {
    for (const tool_choice of [{ type: 'tool', name: 'add' }, { type: 'tool', name: 'get_weather' },
                               { type: 'any', disable_parallel_tool_use: true }]) {
      const req = { ...base, max_tokens: 200, tools: [weather, add], tool_choice };
      const m = await client.messages.create(req);
      assert.equal(m.stop_reason, 'tool_use', JSON.stringify(m));
      const uses = m.content.filter((b) => b.type === 'tool_use');
      assert.equal(uses.length, 1, JSON.stringify(m.content));
      if (tool_choice.name) assert.equal(uses[0].name, tool_choice.name);
      for (const b of uses) checkToolUse(b, [weather, add]);
      const s = await collect(await client.messages.create({ ...req, stream: true }));
      assert.deepEqual(withoutIds(s.blocks), withoutIds(m.content));
      for (const b of s.blocks) checkToolUse(b, [weather, add]);
      assert.equal(s.delta.delta.stop_reason, 'tool_use');
      assert.ok(s.events.some((e) => e.delta?.type === 'input_json_delta'), 'input streamed as input_json_delta');
      const final = await client.messages.stream(req).finalMessage();
      assert.deepEqual(withoutIds(final.content), withoutIds(m.content));
    }
  });

  it('a tool_result turn continues the conversation as the chat API does', async () => {
    const req = { ...base, max_tokens: 200, tools: [weather], tool_choice: { type: 'tool', name: 'get_weather' } };
    const first = await client.messages.create(req);
    const use = first.content.find((b) => b.type === 'tool_use');
    const messages = [...base.messages, { role: 'assistant', content: first.content },
                      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temperature": 21}' }] }];
    const second = await client.messages.create({ ...base, messages, tools: [weather], tool_choice: { type: 'auto' }, max_tokens: 12 });
    assert.ok(second.usage.input_tokens > first.usage.input_tokens + 10, 'the call and its result are in the prompt');
    assert.ok(['end_turn', 'max_tokens', 'tool_use'].includes(second.stop_reason));
    const chat = await openai.chat.completions.create({
      model, max_tokens: 12, temperature: 0, tool_choice: 'auto',
      tools: [{ type: 'function', function: { name: weather.name, description: weather.description, parameters: weather.input_schema } }],
      messages: [{ role: 'system', content: base.system }, ...base.messages,
                 { role: 'assistant', content: '', tool_calls: [{ id: use.id, type: 'function',
                                                                   function: { name: use.name, arguments: JSON.stringify(use.input) } }] },
                 { role: 'tool', tool_call_id: use.id, content: '{"temperature": 21}' }] });
    assert.equal(second.usage.input_tokens, chat.usage.prompt_tokens);
    assert.equal(text(second), chat.choices[0].message.content ?? '');
    // tool_result content as text blocks is the same prompt
    const blocks = messages.slice(0, 2).concat([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id,
                                                                          content: [{ type: 'text', text: '{"temperature": 21}' }] }] }]);
    const count = await client.messages.countTokens({ model, system: base.system, messages: blocks, tools: [weather] });
    assert.equal(count.input_tokens, second.usage.input_tokens);
  });

  it('stop_sequences end the reply with stop_reason stop_sequence, whole and streamed', async () => {
    const long = text(await client.messages.create({ ...base, max_tokens: 24 }));
    const stop = long.slice(5, 7);
    const expected = long.slice(0, long.indexOf(stop));
    assert.ok(expected.length > 0, `the answer '${long}' should not start with its stop`);
    const m = await client.messages.create({ ...base, max_tokens: 24, stop_sequences: ['never-written', stop] });
    assert.equal(m.stop_reason, 'stop_sequence');
    assert.equal(m.stop_sequence, stop);
    assert.equal(text(m), expected);
    const s = await collect(await client.messages.create({ ...base, max_tokens: 24, stop_sequences: [stop], stream: true }));
    assert.equal(s.delta.delta.stop_reason, 'stop_sequence');
    assert.equal(s.delta.delta.stop_sequence, stop);
    assert.equal(s.blocks.map((b) => b.text).join(''), expected);
  });

  it('max_tokens ends the reply with stop_reason max_tokens', async () => {
    const m = await client.messages.create({ ...base, max_tokens: 3 });
    assert.equal(m.stop_reason, 'max_tokens');
    assert.equal(m.usage.output_tokens, 3);
  });

  it('count_tokens equals usage.input_tokens of the same request', async () => {
    for (const extra of [{}, { tools: [weather, add], tool_choice: { type: 'tool', name: 'add' } }, { system: undefined }]) {
      const req = { ...base, ...extra, max_tokens: 200 };
      const m = await client.messages.create(req);
      const { max_tokens, ...counted } = req;
      const count = await client.messages.countTokens(counted);
      assert.deepEqual(Object.keys(count), ['input_tokens']);
      assert.equal(count.input_tokens, m.usage.input_tokens, JSON.stringify(extra));
    }
  });

  it('errors come in Anthropic\'s shape with the usual statuses, naming the field', async () => {
    const cases = [
      [{ model, messages: base.messages }, 400, 'invalid_request_error', /^max_tokens: required/],
      [{ ...base, messages: [{ role: 'system', content: 'x' }] }, 400, 'invalid_request_error', /^messages\[0\]\.role: 'system' is not one of user, assistant/],
      [{ ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } }] }] },
       400, 'invalid_request_error', /^messages\[0\]\.content\[0\]: the model .* takes no image input/],
      [{ ...base, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 400, 'invalid_request_error', /^tools\[0\]\.type: server tools/],
      [{ ...base, tools: [{ name: 'bad name', input_schema: { type: 'object' } }] }, 400, 'invalid_request_error', /^tools\[0\]\.name/],
      [{ ...base, tools: [weather], tool_choice: { type: 'tool', name: 'nope' } }, 400, 'invalid_request_error', /tool_choice\.name/],
      [{ ...base, tool_choice: { type: 'sometimes' } }, 400, 'invalid_request_error', /^tool_choice\.type/],
      [{ ...base, stop_sequences: 'x' }, 400, 'invalid_request_error', /^stop_sequences/],
      [{ ...base, thinking: { type: 'enabled' } }, 400, 'invalid_request_error', /^thinking\.budget_tokens/],
      [{ ...base, model: 'claude-nope' }, 404, 'not_found_error', /the model 'claude-nope' does not exist/],
    ];
    for (const [body, status, type, message] of cases) {
      const e = await apiError(client.messages.create(body));
      assert.equal(e.status, status, JSON.stringify(body));
      assert.equal(e.error.type, 'error');
      assert.equal(e.error.error.type, type, JSON.stringify(e.error));
      assert.match(e.error.error.message, message);
      assert.deepEqual(Object.keys(e.error).sort(), ['error', 'type']);
    }
    assert.ok((await apiError(client.messages.create({ ...base, model: 'x' }))) instanceof Anthropic.NotFoundError);
    const raw = await postJson(server.url + '/v1/messages/count_tokens', '{"model": ');
    assert.equal(raw.status, 400);
    assert.equal(raw.json.type, 'error');
    assert.equal(raw.json.error.type, 'invalid_request_error');
    const other = await postJson(server.url + '/v1/chat/completions', { model, messages: [] });
    assert.equal(other.json.type, undefined, 'other routes keep OpenAI\'s shape');
    assert.ok(other.json.error.message);
  });
});

describe('/v1/messages thinking (SmolLM3 template)', () => {
  let server;
  let client;
  let tmp;
  const model = 'smol';
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai_messages_think_'));
    server = await startServer(ogai, packageWith('smollm3.chat_template.jinja', tmp), ['--model-name', model, ...kServeFlags]);
    client = new Anthropic({ baseURL: server.url, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); fs.rmSync(tmp, { recursive: true, force: true }); });

  const messages = [{ role: 'user', content: 'Hi' }];

  it('thinking enabled / disabled reaches the template (enable_thinking)', async () => {
    const count = async (extra) => (await client.messages.countTokens({ model, messages, ...extra })).input_tokens;
    const on = await count({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    const off = await count({ thinking: { type: 'disabled' } });
    assert.notEqual(on, off);
    assert.equal(await count({}), on, 'SmolLM3 thinks by default');
  });

  it('reasoning comes back as a thinking block, whole and streamed (thinking_delta)', async () => {
    // The assistant's prefill opens the reasoning section, so the reply starts as reasoning.
    const req = { model, max_tokens: 10, thinking: { type: 'enabled', budget_tokens: 1024 },
                  messages: [...messages, { role: 'assistant', content: '<think>' }] };
    const m = await client.messages.create(req);
    assert.equal(m.content[0].type, 'thinking', JSON.stringify(m.content));
    assert.ok(m.content[0].thinking.length > 0);
    assert.equal(m.content[0].signature, '');
    const s = await collect(await client.messages.create({ ...req, stream: true }));
    assert.deepEqual(s.blocks, m.content);
    assert.ok(s.events.some((e) => e.delta?.type === 'thinking_delta'));
    // a thinking block sent back in an assistant turn is accepted
    const back = await client.messages.create({ model, max_tokens: 2, messages: [...messages, { role: 'assistant', content: m.content },
                                                                                   { role: 'user', content: 'And?' }] });
    assert.equal(back.type, 'message');
  });
});

describe('/v1/messages with --api-key and --cors-origin', () => {
  let server;
  const origin = 'http://app.example';
  before(async () => { server = await startServer(ogai, tiny, ['--api-key', 'sk-test', '--cors-origin', origin, ...kServeFlags]); });
  after(async () => { await stopServer(server); });

  it('takes the key as x-api-key (the SDK\'s header) and refuses a wrong one as authentication_error', async () => {
    const models = await (await fetch(server.url + '/v1/models', { headers: { authorization: 'Bearer sk-test' } })).json();
    const model = models.data[0].id;
    const req = { model, max_tokens: 2, messages: [{ role: 'user', content: 'Hi' }] };
    const ok = await new Anthropic({ baseURL: server.url, apiKey: 'sk-test', maxRetries: 0 }).messages.create(req);
    assert.equal(ok.type, 'message');
    const e = await apiError(new Anthropic({ baseURL: server.url, apiKey: 'wrong', maxRetries: 0 }).messages.create(req));
    assert.ok(e instanceof Anthropic.AuthenticationError);
    assert.equal(e.status, 401);
    assert.equal(e.error.error.type, 'authentication_error');
    // CORS and the access log as on every route: the preflight (the SDK's headers), then the call.
    const headers = 'x-api-key, anthropic-version, content-type';
    const pre = await fetch(server.url + '/v1/messages', { method: 'OPTIONS', headers: {
      origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers } });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-headers'), headers);
    const res = await fetch(server.url + '/v1/messages', { method: 'POST', body: JSON.stringify(req), headers: {
      origin, 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), origin);
    const id = res.headers.get('x-request-id');
    await new Promise((r) => setTimeout(r, 200));
    assert.match(server.stderr(), new RegExp(`"POST /v1/messages HTTP/1.1" 200 .* id=${id}`));
    assert.match(server.stderr(), /"POST \/v1\/messages HTTP\/1.1" 401 /);
  });
});
