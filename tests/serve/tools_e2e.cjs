// Tool calling and reasoning through `ogai serve`, driven by the real `openai` npm client and two
// agent frameworks (the AI SDK's generateText with tools, LangChain's bindTools), on stories260k
// packaged with the shared Qwen2.5 template (hermes <tool_call> format) and the SmolLM3 template
// (reasoning, enable_thinking). The random-weight model writes garbage, so calls are produced
// with tool_choice "required" / a named function (the constraint engine forces them; arguments
// are validated against the parameter schema by python3-jsonschema). Streamed and whole agree
// (greedy); the tool message sent back renders and the conversation continues; bad tool
// definitions are 400s naming the field; an unenforceable schema keyword is refused with its
// JSON pointer.
//   node tools_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const peer = require('../peers/peers.cjs');
const { OpenAI } = peer('openai');
const { startServer, stopServer, postJson } = require('./server_harness.cjs');

const ogai = process.argv[2];
// Clients keep connections alive between the (slow, on a loaded machine) requests; a longer idle
// timeout than the default 5 s keeps the server from closing one just as a client reuses it.
const kServeFlags = ['--idle-timeout', '120'];
const { packageWith, tiny, templates } = require('./tool_package.cjs');


const weather = {
  type: 'function',
  function: {
    name: 'get_weather', description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 12 },
                                                unit: { enum: ['celsius', 'fahrenheit'] } },
                  required: ['city', 'unit'], additionalProperties: false },
  },
};
const add = {
  type: 'function',
  function: { name: 'add', parameters: { type: 'object', properties: { a: { type: 'integer', minimum: 0, maximum: 99 },
                                                                         b: { type: 'integer', minimum: 0, maximum: 99 } },
                                          required: ['a', 'b'] } },
};

function schemaErrors(schema, value) {
  const code = 'import json,sys,jsonschema\nd=json.load(sys.stdin)\n' +
    'print(json.dumps([e.message for e in jsonschema.Draft202012Validator(d["s"]).iter_errors(d["v"])]))';
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', code], { input: JSON.stringify({ s: schema, v: value }) }));
}

function checkCall(call, tools) {
  assert.equal(call.type, 'function');
  assert.match(call.id, /^call_[A-Za-z0-9]{24}$/);
  const tool = tools.find((t) => t.function.name === call.function.name);
  assert.ok(tool, `unknown function ${call.function.name}`);
  const args = JSON.parse(call.function.arguments);
  assert.deepEqual(schemaErrors(tool.function.parameters, args), [], call.function.arguments);
}

// Accumulates a streamed chat response as OpenAI clients do.
async function collect(stream) {
  const out = { content: '', reasoning: '', calls: [], finish: null, chunks: 0 };
  for await (const chunk of stream) {
    const c = chunk.choices[0];
    if (!c) continue;
    out.chunks += 1;
    const d = c.delta;
    out.content += d.content ?? '';
    out.reasoning += d.reasoning_content ?? '';
    for (const t of d.tool_calls ?? []) {
      if (t.id) {
        assert.equal(t.index, out.calls.length, 'a new call takes the next index');
        assert.equal(t.type, 'function');
        out.calls.push({ id: t.id, type: 'function', function: { name: t.function.name, arguments: t.function.arguments ?? '' } });
      } else {
        assert.equal(t.function.name, undefined, 'later pieces carry only arguments');
        out.calls[t.index].function.arguments += t.function.arguments;
      }
    }
    if (c.finish_reason) out.finish = c.finish_reason;
  }
  return out;
}

// The AI SDK's tool loop: generateText with a tool, forced, runs it and sends the result back.
async function aiSdkLoop(url, model, maxTokens) {
  const { generateText, tool, jsonSchema, stepCountIs } = peer('ai');
  const { createOpenAICompatible } = peer('@ai-sdk/openai-compatible');
  const provider = createOpenAICompatible({ name: 'ogai', baseURL: url + '/v1', apiKey: 'unused' });
  const executed = [];
  const result = await generateText({
    model: provider(model), prompt: 'Weather in Paris?', maxOutputTokens: maxTokens, temperature: 0,
    tools: { get_weather: tool({ description: 'The weather', inputSchema: jsonSchema(weather.function.parameters),
                                 execute: async (input) => { executed.push(input); return { temperature: 21 }; } }) },
    toolChoice: 'required', stopWhen: stepCountIs(2),
  });
  assert.equal(result.steps.length, 2, 'a second request carried the tool result');
  assert.equal(result.steps[0].finishReason, 'tool-calls');
  assert.equal(result.steps[0].toolCalls[0].toolName, 'get_weather');
  assert.ok(executed.length >= 1);
  assert.deepEqual(schemaErrors(weather.function.parameters, executed[0]), []);
  assert.equal(result.steps[0].toolResults[0].output.temperature, 21);
}

// LangChain's bindTools: parsed tool calls, whole and streamed, and a ToolMessage continuing.
async function langchainLoop(url, model, maxTokens) {
  const { ChatOpenAI } = peer('@langchain/openai');
  const { HumanMessage, ToolMessage } = peer('@langchain/core/messages');
  const llm = new ChatOpenAI({ model, apiKey: 'unused', temperature: 0, maxTokens, maxRetries: 0,
                               configuration: { baseURL: url + '/v1' } });
  const bound = llm.bindTools([weather], { tool_choice: 'required' });
  const ai = await bound.invoke([new HumanMessage('Weather in Paris?')]);
  assert.equal(ai.tool_calls.length >= 1, true);
  assert.equal(ai.tool_calls[0].name, 'get_weather');
  assert.deepEqual(schemaErrors(weather.function.parameters, ai.tool_calls[0].args), []);
  let merged = null;
  for await (const chunk of await bound.stream([new HumanMessage('Weather in Paris?')])) merged = merged ? merged.concat(chunk) : chunk;
  assert.deepEqual(merged.tool_calls.map((c) => [c.name, c.args]), ai.tool_calls.map((c) => [c.name, c.args]));
  const next = await llm.bindTools([weather]).invoke(
    [new HumanMessage('Weather in Paris?'), ai, new ToolMessage({ tool_call_id: ai.tool_calls[0].id, content: '21 C' })]);
  assert.equal(typeof next.content, 'string');
}

describe('tool calls through ogai serve', () => {
  let server;
  let client;
  let tmp;
  const model = 'qwen2';
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai_tools_'));
    server = await startServer(ogai, packageWith('qwen2.5.tokenizer_config.json', tmp), ['--model-name', model, ...kServeFlags]);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); fs.rmSync(tmp, { recursive: true, force: true }); });

  const base = { model, messages: [{ role: 'user', content: 'What is the weather in Paris?' }], max_tokens: 200,
                 temperature: 0 };

  it('required: a call is produced, parsed, valid; streamed and whole agree', async () => {
    for (const parallel of [true, false]) {
      const req = { ...base, tools: [weather, add], tool_choice: 'required', parallel_tool_calls: parallel };
      const whole = await client.chat.completions.create(req);
      const choice = whole.choices[0];
      assert.equal(choice.finish_reason, 'tool_calls', JSON.stringify(choice));
      assert.equal(choice.message.content, null);
      assert.ok(choice.message.tool_calls.length >= 1);
      if (!parallel) assert.equal(choice.message.tool_calls.length, 1);
      for (const call of choice.message.tool_calls) checkCall(call, [weather, add]);
      const streamed = await collect(await client.chat.completions.create({ ...req, stream: true }));
      assert.equal(streamed.finish, 'tool_calls');
      assert.equal(streamed.content, '');
      assert.deepEqual(streamed.calls.map((c) => c.function), choice.message.tool_calls.map((c) => c.function));
    }
  });

  it('n = 2 streamed: each choice\'s tool-call deltas add up to that choice of the whole answer', async () => {
    const req = { ...base, tools: [weather, add], tool_choice: 'required', temperature: 1.0, seed: 4, n: 2 };
    const whole = await client.chat.completions.create(req);
    const stream = await client.chat.completions.create({ ...req, stream: true });
    const byChoice = [[], []];
    for await (const chunk of stream) {
      for (const c of chunk.choices) byChoice[c.index].push({ ...chunk, choices: [{ ...c, index: 0 }] });
    }
    for (let i = 0; i < 2; i++) {
      const streamed = await collect((async function* () { yield* byChoice[i]; })());
      const choice = whole.choices[i];
      assert.equal(choice.finish_reason, 'tool_calls', JSON.stringify(choice));
      assert.equal(streamed.finish, 'tool_calls', `choice ${i}`);
      assert.deepEqual(streamed.calls.map((c) => c.function), choice.message.tool_calls.map((c) => c.function), `choice ${i}`);
    }
    assert.notDeepEqual(whole.choices[0].message.tool_calls.map((c) => c.function),
                        whole.choices[1].message.tool_calls.map((c) => c.function), 'the seeds should give different calls');
  });

  it('every format (chosen with tool_call_format) is forced and parsed back, whole and streamed', async () => {
    for (const tool_call_format of ['hermes', 'llama3_json', 'mistral']) {
      const req = { ...base, tools: [weather, add], tool_choice: 'required', tool_call_format, parallel_tool_calls: false };
      const whole = await client.chat.completions.create(req);
      const choice = whole.choices[0];
      assert.equal(choice.finish_reason, 'tool_calls', `${tool_call_format}: ${JSON.stringify(choice)}`);
      for (const call of choice.message.tool_calls) checkCall(call, [weather, add]);
      const streamed = await collect(await client.chat.completions.create({ ...req, stream: true }));
      assert.deepEqual(streamed.calls.map((c) => c.function), choice.message.tool_calls.map((c) => c.function));
    }
  });

  it('a named function is the one called', async () => {
    for (const name of ['add', 'get_weather']) {
      const whole = await client.chat.completions.create(
        { ...base, tools: [weather, add], tool_choice: { type: 'function', function: { name } } });
      const calls = whole.choices[0].message.tool_calls;
      assert.equal(calls.length, 1);
      assert.equal(calls[0].function.name, name);
      checkCall(calls[0], [weather, add]);
    }
  });

  it('the tool result goes back and the conversation continues', async () => {
    const first = await client.chat.completions.create({ ...base, tools: [weather], tool_choice: 'required' });
    const call = first.choices[0].message.tool_calls[0];
    const messages = [...base.messages, first.choices[0].message,
                      { role: 'tool', tool_call_id: call.id, content: '{"temperature": 21}' }];
    for (const tool_choice of ['auto', 'none']) {
      const second = await client.chat.completions.create({ ...base, messages, tools: [weather], tool_choice, max_tokens: 12 });
      assert.ok(second.usage.prompt_tokens > first.usage.prompt_tokens + 10, 'the call and its result are in the prompt');
      assert.ok(['stop', 'length', 'tool_calls'].includes(second.choices[0].finish_reason));
      const whole = second.choices[0].message;
      const streamed = await collect(await client.chat.completions.create(
        { ...base, messages, tools: [weather], tool_choice, max_tokens: 12, stream: true }));
      assert.equal(streamed.content, whole.content ?? '');
      assert.equal(streamed.calls.length, (whole.tool_calls ?? []).length);
      if (tool_choice === 'none') assert.equal(whole.tool_calls, undefined);
    }
  });

  it('bad tool definitions are 400s naming the field', async () => {
    const cases = [
      [{ tools: [{ type: 'function', function: { description: 'x' } }] }, 'tools[0].function.name'],
      [{ tools: [{ type: 'fn', function: { name: 'f' } }] }, 'tools[0].type'],
      [{ tools: [weather, { type: 'function', function: { name: 'f', parameters: [1] } }] }, 'tools[1].function.parameters'],
      [{ tools: [{ type: 'function', function: { name: 'bad name' } }] }, 'tools[0].function.name'],
      [{ tools: 'x' }, 'tools'],
      [{ tools: [weather], tool_choice: 'sometimes' }, 'tool_choice'],
      [{ tools: [weather], tool_choice: { type: 'function', function: { name: 'nope' } } }, 'tool_choice.function.name'],
      [{ tool_choice: 'required' }, 'tool_choice'],
      [{ tools: [weather], chat_template_kwargs: [1] }, 'chat_template_kwargs'],
      [{ tools: [weather], tool_call_format: 'xml' }, 'tool_call_format'],
      [{ messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
      [{ messages: [{ role: 'assistant', tool_calls: [{ type: 'function' }] }] }, 'messages[0].tool_calls[0].function'],
    ];
    for (const [extra, param] of cases) {
      const res = await postJson(server.url + '/v1/chat/completions', { ...base, ...extra });
      assert.equal(res.status, 400, JSON.stringify(extra));
      assert.equal(res.json.error.param, param, res.text);
      assert.ok(res.json.error.message.includes(param), res.text);
    }
  });

  it('fails closed: an unenforceable keyword names itself and its pointer, in any tool choice', async () => {
    const bad = { type: 'function', function: { name: 'f', parameters: { type: 'object',
      properties: { x: { type: 'string', not: { const: 'a' } } } } } };
    for (const tool_choice of ['auto', 'required']) {
      const res = await postJson(server.url + '/v1/chat/completions', { ...base, tools: [weather, bad], tool_choice });
      assert.equal(res.status, 400);
      assert.equal(res.json.error.code, 'unsupported');
      assert.equal(res.json.error.param, 'tools[1].function.parameters');
      assert.match(res.json.error.message, /'not' .* at '#\/properties\/x\/not'/);
    }
  });

  it('the AI SDK: generateText with a tool runs it and continues', async () => aiSdkLoop(server.url, model, 200));

  it('LangChain: bindTools gets parsed tool calls, whole and streamed', async () => langchainLoop(server.url, model, 200));
});

describe('reasoning through ogai serve (SmolLM3 template)', () => {
  let server;
  let client;
  let tmp;
  const model = 'smol';
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai_reasoning_'));
    server = await startServer(ogai, packageWith('smollm3.chat_template.jinja', tmp), ['--model-name', model, ...kServeFlags]);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); fs.rmSync(tmp, { recursive: true, force: true }); });

  it('the <think> section is reasoning_content, kept out of content; streamed and whole agree', async () => {
    // The regex makes the random model write a reasoning section, then an answer.
    const req = { model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100, temperature: 0,
                  response_format: { type: 'regex', regex: '<think>[a-z]{3,8}</think>\n[a-z]{2,6}' } };
    const whole = (await client.chat.completions.create(req)).choices[0].message;
    assert.match(whole.reasoning_content, /^[a-z]{3,8}$/);
    assert.match(whole.content, /^[a-z]{2,6}$/);
    const streamed = await collect(await client.chat.completions.create({ ...req, stream: true }));
    assert.equal(streamed.reasoning, whole.reasoning_content);
    assert.equal(streamed.content, whole.content);
  });

  it('chat_template_kwargs reach the template (enable_thinking)', async () => {
    const req = { model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1 };
    const on = await client.chat.completions.create(req);
    const off = await client.chat.completions.create({ ...req, chat_template_kwargs: { enable_thinking: false } });
    const onAgain = await client.chat.completions.create({ ...req, chat_template_kwargs: { enable_thinking: true } });
    assert.equal(on.usage.prompt_tokens, onAgain.usage.prompt_tokens);
    assert.notEqual(on.usage.prompt_tokens, off.usage.prompt_tokens);
  });
});

// Gemma-4 (issue 22): tiny-e2b served with the real Gemma-4 template through --chat-template. Calls
// are written and parsed in Gemma-4's own syntax (<|tool_call>call:NAME{...}<tool_call|>), forced
// arguments in its own dialect (bare sorted keys, <|"|> strings), streamed in pieces; the AI SDK
// and LangChain tool loops run on it; its thinking channel is reasoning_content.
describe('Gemma-4 tool calls and reasoning through ogai serve', () => {
  let server;
  let client;
  let tmp;
  const model = 'gemma4';
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai_gemma4_'));
    const dir = packageWith('gemma-4.chat_template.jinja', tmp);
    server = await startServer(ogai, dir, ['--model-name', model, '--chat-template',
                                           path.join(templates, 'gemma-4.chat_template.jinja'), ...kServeFlags]);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); fs.rmSync(tmp, { recursive: true, force: true }); });

  const base = { model, messages: [{ role: 'user', content: 'What is the weather in Paris?' }], max_tokens: 120,
                 temperature: 0 };

  it('named and required calls: valid, whole and streamed agree, arguments stream in pieces', async () => {
    for (const tool_choice of [{ type: 'function', function: { name: 'get_weather' } }, 'required']) {
      for (const parallel of [false, true]) {
        const req = { ...base, tools: [weather, add], tool_choice, parallel_tool_calls: parallel };
        const whole = (await client.chat.completions.create(req)).choices[0];
        assert.equal(whole.finish_reason, 'tool_calls', JSON.stringify(whole));
        const calls = whole.message.tool_calls;
        assert.ok(calls.length >= 1);
        if (!parallel || typeof tool_choice === 'object') assert.equal(calls.length, 1);
        if (typeof tool_choice === 'object') assert.equal(calls[0].function.name, 'get_weather');
        for (const call of calls) checkCall(call, [weather, add]);
        const stream = await client.chat.completions.create({ ...req, stream: true });
        let pieces = 0;
        const streamed = await collect((async function* () {
          for await (const chunk of stream) {
            for (const t of chunk.choices[0]?.delta?.tool_calls ?? []) if (!t.id) pieces += 1;
            yield chunk;
          }
        })());
        assert.equal(streamed.finish, 'tool_calls');
        assert.deepEqual(streamed.calls.map((c) => c.function), calls.map((c) => c.function));
        assert.ok(pieces > calls.length, `arguments came in ${pieces} pieces`);
      }
    }
  });

  // A value as Gemma-4's template writes it: keys bare and sorted as Jinja's dictsort sorts them
  // (lower-cased), strings between <|"|> as written, everything else as JSON.
  function gemmaValue(v) {
    if (typeof v === 'string') return `<|"|>${v}<|"|>`;
    if (Array.isArray(v)) return `[${v.map(gemmaValue).join(',')}]`;
    if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v).sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0));
      return `{${keys.map((k) => `${k}:${gemmaValue(v[k])}`).join(',')}}`;
    }
    return JSON.stringify(v);
  }

  it('forced calls are written in Gemma-4\'s argument dialect (the raw reply read from logprobs)', async () => {
    for (const tool_choice of [{ type: 'function', function: { name: 'get_weather' } }, 'required']) {
      for (const [parallel, seed] of [[false, undefined], [true, undefined], [true, 5], [false, 6]]) {
        const req = { ...base, tools: [weather, add], tool_choice, parallel_tool_calls: parallel, logprobs: true,
                      ...(seed === undefined ? {} : { temperature: 1, seed }) };
        const choice = (await client.chat.completions.create(req)).choices[0];
        const raw = Buffer.concat(choice.logprobs.content.map((t) => Buffer.from(t.bytes))).toString('utf8');
        const calls = choice.message.tool_calls;
        for (const call of calls) checkCall(call, [weather, add]);
        const expected = calls.map((c) => `<|tool_call>call:${c.function.name}${gemmaValue(JSON.parse(c.function.arguments))}<tool_call|>`);
        // The reply's tokens end with the end-of-sequence token that stopped it (tiny-e2b's <end_of_turn>).
        const eos = choice.logprobs.content.at(-1).token;
        assert.ok(eos.startsWith('<') && eos.endsWith('>'), eos);
        assert.equal(raw, expected.join('') + eos, `raw reply ${raw}`);
        assert.doesNotMatch(raw, /"(city|unit|a|b)"/);
        if (!parallel) assert.equal(calls.length, 1);
      }
    }
  });

  it('the prompt carries Gemma-4 declarations; a tool result continues the conversation', async () => {
    const first = (await client.chat.completions.create({ ...base, tools: [weather],
      tool_choice: { type: 'function', function: { name: 'get_weather' } } })).choices[0].message;
    const call = first.tool_calls[0];
    const messages = [...base.messages, { role: 'assistant', content: null, tool_calls: [call] },
                      { role: 'tool', tool_call_id: call.id, content: '{"temperature": 21}' }];
    const next = await client.chat.completions.create({ ...base, messages, tools: [weather], max_tokens: 5 });
    assert.ok(next.usage.prompt_tokens > 0);
    assert.ok(['stop', 'length', 'tool_calls'].includes(next.choices[0].finish_reason));
  });

  it('the AI SDK tool loop', async () => aiSdkLoop(server.url, model, 100));

  it('the LangChain tool loop', async () => langchainLoop(server.url, model, 100));

  it('auto: what the random model writes comes back (content or calls), never an error', async () => {
    const r = (await client.chat.completions.create({ ...base, tools: [weather], max_tokens: 20 })).choices[0];
    assert.ok(typeof r.message.content === 'string' || r.message.tool_calls);
  });

  it('the thinking channel is reasoning_content, whole and streamed', async () => {
    const req = { model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 60, temperature: 0,
                  chat_template_kwargs: { enable_thinking: true },
                  response_format: { type: 'regex', regex: '<\\|channel>thought\n[a-z]{3,8}<channel\\|>[a-z]{2,6}' } };
    const whole = (await client.chat.completions.create(req)).choices[0].message;
    assert.match(whole.reasoning_content, /^[a-z]{3,8}$/);
    assert.match(whole.content, /^[a-z]{2,6}$/);
    const streamed = await collect(await client.chat.completions.create({ ...req, stream: true }));
    assert.equal(streamed.reasoning, whole.reasoning_content);
    assert.equal(streamed.content, whole.content);
  });
});

describe('reasoning_effort reaches the template', () => {
  let server;
  let tmp;
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai_effort_'));
    const dir = path.join(tmp, 'pkg');
    fs.cpSync(tiny, dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'chat_template.jinja'),
                     "{{ messages[0]['content'] }}{% if reasoning_effort is defined %} effort: {{ reasoning_effort }}, " +
                     "think {{ reasoning_effort }}{% endif %}\n");
    server = await startServer(ogai, dir, ['--model-name', 'e', ...kServeFlags]);
  });
  after(async () => { await stopServer(server); fs.rmSync(tmp, { recursive: true, force: true }); });

  it('a different effort renders a different prompt; a bad one is a 400 naming the field', async () => {
    const ask = (extra) => postJson(server.url + '/v1/chat/completions',
      { model: 'e', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1, ...extra });
    const none = await ask({});
    const high = await ask({ reasoning_effort: 'high' });
    assert.equal(none.status, 200);
    assert.equal(high.status, 200);
    assert.notEqual(none.json.usage.prompt_tokens, high.json.usage.prompt_tokens);
    const bad = await ask({ reasoning_effort: 'extreme' });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /reasoning_effort/);
  });
});
