// POST /v1/responses through the real `openai` npm client (client.responses.create). On
// stories260k: a string input and a messages input with instructions, whole and streamed; greedy
// output must equal the same conversation through chat completions; streamed events must come in
// OpenAI's order with increasing sequence numbers, and their deltas must join to the final text;
// max_output_tokens ends a response as incomplete; previous_response_id continues a stored
// conversation (equal to sending it whole), unknown and store: false ids are 404s, GET
// /v1/responses/{id} returns a stored response; unsupported
// features are 400s naming the field. On tiny-e2b with the Qwen2.5 template: forced function
// calls (valid against their parameters, equal to chat completions' calls, streamed argument
// deltas joining to the arguments), a function_call_output turn (equal to the chat conversation,
// and through previous_response_id), text.format json_schema / json_object; with the SmolLM3
// template: reasoning items and their streamed reasoning_text events; reasoning.effort.
//   node responses_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer, postJson } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const MODEL = 'stories260k';

const OPENING = ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added'];
const CLOSING = ['response.output_text.done', 'response.content_part.done', 'response.output_item.done'];

async function collect(stream) {
  const events = [];
  for await (const e of stream) events.push(e);
  return events;
}

// The event types with the deltas collapsed: OPENING, 'delta'..., CLOSING, the end.
function checkOrder(events, end) {
  const types = events.map((e) => e.type);
  assert.deepEqual(types.slice(0, OPENING.length), OPENING);
  const deltas = types.slice(OPENING.length, types.length - CLOSING.length - 1);
  assert.ok(deltas.length > 0, 'at least one delta');
  assert.ok(deltas.every((t) => t === 'response.output_text.delta'), types.join(' '));
  assert.deepEqual(types.slice(types.length - CLOSING.length - 1), [...CLOSING, end]);
  events.forEach((e, i) => assert.equal(e.sequence_number, i, `sequence_number of event ${i}`));
}

describe('POST /v1/responses (stories260k)', () => {
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

  it('answers a string input like the same chat completion', async () => {
    const r = await client.responses.create({ model: MODEL, input: 'Once upon a time', max_output_tokens: 40,
                                              temperature: 0 });
    const chat = await client.chat.completions.create({ model: MODEL, max_tokens: 40, temperature: 0,
      messages: [{ role: 'user', content: 'Once upon a time' }] });
    assert.equal(r.object, 'response');
    assert.match(r.id, /^resp_[0-9a-f]{32}$/);
    assert.equal(r.model, MODEL);
    assert.equal(r.output.length, 1);
    assert.equal(r.output[0].type, 'message');
    assert.equal(r.output[0].role, 'assistant');
    assert.match(r.output[0].id, /^msg_/);
    assert.equal(r.output[0].content[0].type, 'output_text');
    assert.equal(r.output_text, chat.choices[0].message.content);
    assert.ok(r.output_text.length > 0);
    assert.equal(r.usage.input_tokens, chat.usage.prompt_tokens);
    assert.equal(r.usage.output_tokens, chat.usage.completion_tokens);
    assert.equal(r.usage.total_tokens, r.usage.input_tokens + r.usage.output_tokens);
    assert.equal(r.status, chat.choices[0].finish_reason === 'length' ? 'incomplete' : 'completed');
    assert.equal(r.max_output_tokens, 40);
  });

  it('takes messages and instructions (a system message first)', async () => {
    const input = [{ role: 'user', content: [{ type: 'input_text', text: 'Lily had a dog.' }] },
                   { type: 'message', role: 'assistant', content: 'The dog was big.' },
                   { role: 'user', content: 'Tell me more' }];
    const r = await client.responses.create({ model: MODEL, instructions: 'Tell a story.', input,
                                              max_output_tokens: 30, temperature: 0 });
    const chat = await client.chat.completions.create({ model: MODEL, max_tokens: 30, temperature: 0, messages: [
      { role: 'system', content: 'Tell a story.' }, { role: 'user', content: 'Lily had a dog.' },
      { role: 'assistant', content: 'The dog was big.' }, { role: 'user', content: 'Tell me more' }] });
    assert.equal(r.output_text, chat.choices[0].message.content);
    assert.equal(r.usage.input_tokens, chat.usage.prompt_tokens);
    assert.equal(r.instructions, 'Tell a story.');
  });

  it('streams OpenAI\'s events in order; the deltas join to the final text', async () => {
    const whole = await client.responses.create({ model: MODEL, input: 'Once upon a time', max_output_tokens: 200,
                                                  temperature: 0 });
    const events = await collect(await client.responses.create({ model: MODEL, input: 'Once upon a time',
                                                                 max_output_tokens: 200, temperature: 0, stream: true }));
    const end = events.at(-1);
    checkOrder(events, whole.status === 'completed' ? 'response.completed' : 'response.incomplete');
    const deltas = events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
    assert.equal(deltas, whole.output_text);
    assert.equal(events.find((e) => e.type === 'response.output_text.done').text, whole.output_text);
    assert.equal(events.find((e) => e.type === 'response.content_part.done').part.text, whole.output_text);
    assert.equal(end.response.output_text ?? end.response.output[0].content[0].text, whole.output_text);
    assert.equal(end.response.usage.output_tokens, whole.usage.output_tokens);
    assert.equal(events[0].response.status, 'in_progress');
    assert.equal(events[0].response.id, end.response.id);
    const item = events.find((e) => e.type === 'response.output_item.added').item;
    assert.ok(events.filter((e) => e.item_id).every((e) => e.item_id === item.id));
  });

  it('ends at max_output_tokens as incomplete, whole and streamed', async () => {
    const r = await client.responses.create({ model: MODEL, input: 'Once upon a time', max_output_tokens: 3 });
    assert.equal(r.status, 'incomplete');
    assert.deepEqual(r.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(r.usage.output_tokens, 3);
    const events = await collect(await client.responses.create({ model: MODEL, input: 'Once upon a time',
                                                                 max_output_tokens: 3, stream: true }));
    checkOrder(events, 'response.incomplete');
    assert.equal(events.at(-1).response.status, 'incomplete');
  });

  it('previous_response_id continues the stored conversation; unknown and store: false ids are 404s', async () => {
    const first = await client.responses.create({ model: MODEL, input: 'Once upon a time', max_output_tokens: 12,
                                                  instructions: 'Tell a story.' });
    const next = await client.responses.create({ model: MODEL, previous_response_id: first.id, input: 'And then?',
                                                 max_output_tokens: 12 });
    assert.equal(next.previous_response_id, first.id);
    // Instructions are not carried over (as OpenAI): the same conversation sent whole, without them.
    const whole = await client.responses.create({ model: MODEL, max_output_tokens: 12, input: [
      { role: 'user', content: 'Once upon a time' }, { role: 'assistant', content: first.output_text },
      { role: 'user', content: 'And then?' }] });
    assert.equal(next.output_text, whole.output_text);
    assert.equal(next.usage.input_tokens, whole.usage.input_tokens);
    // A chain of two, streamed: the stored reply of a streamed response continues too.
    const events = await collect(await client.responses.create({ model: MODEL, previous_response_id: next.id,
                                                                 input: 'The end.', max_output_tokens: 8, stream: true }));
    const third = events.at(-1).response;
    const chain = await client.responses.create({ model: MODEL, previous_response_id: third.id, input: 'Again',
                                                  max_output_tokens: 8 });
    const spelled = await client.chat.completions.create({ model: MODEL, max_tokens: 8, messages: [
      { role: 'user', content: 'Once upon a time' }, { role: 'assistant', content: first.output_text },
      { role: 'user', content: 'And then?' }, { role: 'assistant', content: next.output_text },
      { role: 'user', content: 'The end.' }, { role: 'assistant', content: third.output[0].content[0].text },
      { role: 'user', content: 'Again' }] });
    assert.equal(chain.output_text, spelled.choices[0].message.content);
    assert.equal(chain.usage.input_tokens, spelled.usage.prompt_tokens);
    const unknown = await postJson(server.url + '/v1/responses', { model: MODEL, input: 'x', previous_response_id: 'resp_0' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error.param, 'previous_response_id');
    assert.equal(unknown.json.error.type, 'invalid_request_error');
    assert.match(unknown.json.error.message, /resp_0/);
    await assert.rejects(client.responses.create({ model: MODEL, input: 'x', previous_response_id: 'resp_0' }),
                         (e) => e.status === 404);
    const unstored = await client.responses.create({ model: MODEL, input: 'x', max_output_tokens: 2, store: false });
    assert.equal(unstored.store, false);
    const gone = await postJson(server.url + '/v1/responses', { model: MODEL, input: 'x', previous_response_id: unstored.id });
    assert.equal(gone.status, 404);
    // GET /v1/responses/{id}: the stored object, whole or streamed; unknown and unstored ids 404.
    const { output_text: _a, ...firstObject } = first;
    const { output_text: _b, ...retrieved } = await client.responses.retrieve(first.id);
    assert.deepEqual(retrieved, firstObject);
    assert.deepEqual((await client.responses.retrieve(third.id)).output, third.output);
    await assert.rejects(client.responses.retrieve('resp_0'), (e) => e.status === 404);
    await assert.rejects(client.responses.retrieve(unstored.id), (e) => e.status === 404);
  });

  it('refuses what it does not implement with a 400 naming the field', async () => {
    const cases = [
      [{ input: 'x', tools: [{ type: 'web_search' }] }, 'tools[0].type'],
      [{ input: 'x', previous_response_id: 7 }, 'previous_response_id'],
      [{ input: [{ type: 'computer_call_output', call_id: 'c', output: 'o' }] }, 'input[0].type'],
      [{ input: [{ type: 'function_call_output', output: 'o' }] }, 'input[0].call_id'],
      [{ input: [{ type: 'function_call', call_id: 'c', arguments: '{}' }] }, 'input[0].name'],
      [{ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://x' }] }] }, 'input[0].content[0].image_url'],
      [{ input: 'x', text: { format: { type: 'xml' } } }, 'text.format.type'],
      [{ input: 'x', tool_choice: { type: 'function' }, tools: [{ type: 'function', name: 'f' }] }, 'tool_choice.name'],
      [{}, 'input'],
      [{ input: [] }, 'input'],
      [{ input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
      [{ input: 'x', temperature: -1 }, 'temperature'],
      [{ input: 'x'.repeat(5000) }, 'input'],
    ];
    for (const [body, param] of cases) {
      const r = await postJson(server.url + '/v1/responses', { model: MODEL, ...body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.error.param, param, JSON.stringify(r.json));
    }
    await assert.rejects(client.responses.create({ model: 'nope', input: 'x' }), (e) => e.status === 404);
  });
});

// Tools, text.format and reasoning: tiny-e2b with the shared Qwen2.5 template (hermes <tool_call>
// calls) and the SmolLM3 template (<think> reasoning), its declared context raised to 2048 in the
// copy (the tool preamble does not fit in 512). The random-weight model writes garbage, so calls
// are forced (tool_choice required / named) and validated against the parameters by
// python3-jsonschema; continuations must equal the same conversation through chat completions.
const fs = require('fs');
const os = require('os');
const { execFileSync } = require('child_process');
const { packageWith } = require('./tool_package.cjs');


function schemaErrors(schema, value) {
  const code = 'import json,sys,jsonschema\nd=json.load(sys.stdin)\n' +
    'print(json.dumps([e.message for e in jsonschema.Draft202012Validator(d["s"]).iter_errors(d["v"])]))';
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', code], { input: JSON.stringify({ s: schema, v: value }) }));
}

const weather = { type: 'function', name: 'get_weather', description: 'The weather in a city', strict: true,
  parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 12 },
                                              unit: { enum: ['celsius', 'fahrenheit'] } },
                required: ['city', 'unit'], additionalProperties: false } };
const add = { type: 'function', name: 'add', parameters: { type: 'object',
  properties: { a: { type: 'integer', minimum: 0, maximum: 99 }, b: { type: 'integer', minimum: 0, maximum: 99 } },
  required: ['a', 'b'] } };
const tools = [weather, add];
const chatTools = tools.map(({ type, strict, ...f }) => ({ type, function: f }));

function checkCallItem(item) {
  assert.equal(item.type, 'function_call');
  assert.match(item.id, /^fc_/);
  assert.match(item.call_id, /^call_[A-Za-z0-9]{24}$/);
  assert.equal(item.status, 'completed');
  const tool = tools.find((t) => t.name === item.name);
  assert.ok(tool, `unknown function ${item.name}`);
  assert.deepEqual(schemaErrors(tool.parameters, JSON.parse(item.arguments)), [], item.arguments);
}

// Per call: added, argument deltas, done, item done; the deltas join to the arguments.
function checkCallEvents(events, whole) {
  events.forEach((e, i) => assert.equal(e.sequence_number, i, `sequence_number of event ${i}`));
  const types = events.map((e) => e.type);
  assert.deepEqual(types.slice(0, 2), ['response.created', 'response.in_progress']);
  assert.equal(types.at(-1), 'response.completed');
  let at = 2;
  const calls = whole.output.filter((o) => o.type === 'function_call');
  calls.forEach((call, index) => {
    assert.equal(types[at], 'response.output_item.added', types.join(' '));
    assert.equal(events[at].output_index, index);
    assert.equal(events[at].item.arguments, '');
    assert.equal(events[at].item.name, call.name);
    at += 1;
    let joined = '';
    while (types[at] === 'response.function_call_arguments.delta') {
      assert.equal(events[at].item_id, call.id);
      joined += events[at++].delta;
    }
    assert.equal(joined, call.arguments);
    assert.equal(types[at], 'response.function_call_arguments.done');
    assert.equal(events[at++].arguments, call.arguments);
    assert.equal(types[at], 'response.output_item.done');
    assert.deepEqual(events[at++].item, call);
  });
  assert.equal(at, types.length - 1, types.join(' '));
  assert.deepEqual(events.at(-1).response.output, whole.output);
}

describe('POST /v1/responses with tools and text.format (tiny-e2b, Qwen2.5 template)', () => {
  let server;
  let client;
  let tmp;
  const model = 'qwen2';
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai_responses_'));
    server = await startServer(ogai, packageWith('qwen2.5.tokenizer_config.json', tmp),
                               ['--model-name', model, '--idle-timeout', '120']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); fs.rmSync(tmp, { recursive: true, force: true }); });

  const input = 'What is the weather in Paris?';
  const base = { model, input, tools, max_output_tokens: 200, temperature: 0 };

  it('forced calls: valid function_call items, as chat completions calls them; streamed deltas join', async () => {
    for (const tool_choice of ['required', { type: 'function', name: 'add' }]) {
      for (const parallel_tool_calls of [true, false]) {
        const req = { ...base, tool_choice, parallel_tool_calls };
        const whole = await client.responses.create(req);
        assert.equal(whole.status, 'completed');
        const calls = whole.output.filter((o) => o.type === 'function_call');
        assert.ok(calls.length >= 1, JSON.stringify(whole.output));
        assert.equal(whole.output.length, calls.length, 'no empty message item');
        if (!parallel_tool_calls || typeof tool_choice === 'object') assert.equal(calls.length, 1);
        if (typeof tool_choice === 'object') assert.equal(calls[0].name, 'add');
        calls.forEach(checkCallItem);
        const chat = await client.chat.completions.create({ model, messages: [{ role: 'user', content: input }],
          tools: chatTools, max_tokens: 200, temperature: 0, parallel_tool_calls,
          tool_choice: typeof tool_choice === 'object' ? { type: 'function', function: { name: 'add' } } : tool_choice });
        assert.deepEqual(calls.map((c) => ({ name: c.name, arguments: c.arguments })),
                         chat.choices[0].message.tool_calls.map((c) => c.function));
        const events = await collect(await client.responses.create({ ...req, stream: true }));
        const end = events.at(-1).response;
        // Ids are per response; the rest is the same greedy output.
        const strip = (o) => o.map(({ id, call_id, ...rest }) => rest);
        assert.deepEqual(strip(end.output), strip(whole.output));
        checkCallEvents(events, end);
      }
    }
  });

  it('a function_call_output turn continues as the same chat conversation', async () => {
    const first = await client.responses.create({ ...base, tool_choice: { type: 'function', name: 'get_weather' } });
    const call = first.output.find((o) => o.type === 'function_call');
    checkCallItem(call);
    const turn = { model, tools, max_output_tokens: 30, temperature: 0, tool_choice: 'none',
                   input: [{ role: 'user', content: input }, call,
                           { type: 'function_call_output', call_id: call.call_id, output: '{"temperature": 21}' }] };
    const r = await client.responses.create(turn);
    const chat = await client.chat.completions.create({ model, tools: chatTools, max_tokens: 30, temperature: 0,
      tool_choice: 'none',
      messages: [{ role: 'user', content: input },
                 { role: 'assistant', content: null, tool_calls: [{ id: call.call_id, type: 'function',
                                                                   function: { name: call.name, arguments: call.arguments } }] },
                 { role: 'tool', tool_call_id: call.call_id, content: '{"temperature": 21}' }] });
    assert.equal(r.output_text, chat.choices[0].message.content);
    assert.ok(r.output_text.length > 0);
    assert.equal(r.usage.input_tokens, chat.usage.prompt_tokens);
    // The same turn through previous_response_id: only the tool's output is sent.
    const chained = await client.responses.create({ ...turn, previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temperature": 21}' }] });
    assert.equal(chained.output_text, r.output_text);
    assert.equal(chained.usage.input_tokens, r.usage.input_tokens);
    const events = await collect(await client.responses.create({ ...turn, stream: true }));
    checkOrder(events, events.at(-1).response.status === 'incomplete' ? 'response.incomplete' : 'response.completed');
    assert.equal(events.at(-1).response.output_text ?? events.at(-1).response.output[0].content[0].text, r.output_text);
  });

  it('text.format json_schema and json_object give valid JSON, whole and streamed', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string', maxLength: 10 }, days: { type: 'integer', minimum: 1, maximum: 7 } },
                     required: ['city', 'days'], additionalProperties: false };
    const req = { model, input: 'Plan a trip', max_output_tokens: 120, temperature: 0,
                  text: { format: { type: 'json_schema', name: 'trip', schema, strict: true } } };
    const r = await client.responses.create(req);
    assert.equal(r.status, 'completed');
    assert.deepEqual(schemaErrors(schema, JSON.parse(r.output_text)), [], r.output_text);
    assert.equal(r.text.format.type, 'json_schema');
    const events = await collect(await client.responses.create({ ...req, stream: true }));
    checkOrder(events, 'response.completed');
    assert.equal(events.find((e) => e.type === 'response.output_text.done').text, r.output_text);
    // json_object: the random model may run past the budget inside a string; it must be what the
    // chat path's json_object gives, and valid JSON when it completed.
    const o = await client.responses.create({ ...req, text: { format: { type: 'json_object' } } });
    const oc = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Plan a trip' }],
      max_tokens: 120, temperature: 0, response_format: { type: 'json_object' } });
    assert.equal(o.output_text, oc.choices[0].message.content);
    assert.match(o.output_text, /^\s*\{/);
    if (o.status === 'completed') assert.equal(typeof JSON.parse(o.output_text), 'object');
    const bad = await postJson(server.url + '/v1/responses', { ...req, text: { format: { type: 'json_schema', name: 't' } } });
    assert.equal(bad.status, 400, JSON.stringify(bad.json));
    assert.match(bad.json.error.param, /^text\.format/, JSON.stringify(bad.json));
  });

  it('bad tools and items are 400s naming the Responses field', async () => {
    const cases = [
      [{ tools: [{ type: 'function', name: 'f', parameters: 5 }] }, 'tools[0].parameters'],
      [{ tools: [{ type: 'function', parameters: {} }] }, 'tools[0].name'],
      [{ tools, tool_choice: { type: 'function', name: 'nope' } }, 'tool_choice.name'],
      [{ tools, tool_choice: 'sometimes' }, 'tool_choice'],
      [{ tools, input: [{ role: 'user', content: 'x' }, { type: 'function_call', call_id: 'c', name: 'add', arguments: 7 }] },
       'input[1].arguments'],
    ];
    for (const [body, param] of cases) {
      const r = await postJson(server.url + '/v1/responses', { model, input: 'x', ...body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.error.param, param, JSON.stringify(r.json));
    }
  });
});

describe('POST /v1/responses reasoning items (tiny-e2b, SmolLM3 template)', () => {
  let server;
  let client;
  let tmp;
  const model = 'smol';
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai_responses_smol_'));
    server = await startServer(ogai, packageWith('smollm3.chat_template.jinja', tmp),
                               ['--model-name', model, '--idle-timeout', '120']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); fs.rmSync(tmp, { recursive: true, force: true }); });

  it('the <think> section is a reasoning item before the message; streamed with reasoning_text events', async () => {
    // The regex (ogai's text.format extension) makes the random model write a reasoning section.
    const req = { model, input: 'Hi', max_output_tokens: 100, temperature: 0,
                  text: { format: { type: 'regex', regex: '<think>[a-z]{3,8}</think>\n[a-z]{2,6}' } } };
    const r = await client.responses.create(req);
    assert.deepEqual(r.output.map((o) => o.type), ['reasoning', 'message']);
    assert.match(r.output[0].id, /^rs_/);
    assert.deepEqual(r.output[0].summary, []);
    assert.match(r.output[0].content[0].text, /^[a-z]{3,8}$/);
    assert.equal(r.output[0].content[0].type, 'reasoning_text');
    assert.match(r.output_text, /^[a-z]{2,6}$/);
    const chat = (await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 100, temperature: 0, response_format: req.text.format })).choices[0].message;
    assert.equal(r.output[0].content[0].text, chat.reasoning_content);
    assert.equal(r.output_text, chat.content);
    const events = await collect(await client.responses.create({ ...req, stream: true }));
    events.forEach((e, i) => assert.equal(e.sequence_number, i));
    const types = events.map((e) => e.type);
    const first = types.indexOf('response.reasoning_text.delta');
    assert.deepEqual(types.slice(0, first), ['response.created', 'response.in_progress', 'response.output_item.added',
                                             'response.content_part.added']);
    const reasoning = events.filter((e) => e.type === 'response.reasoning_text.delta').map((e) => e.delta).join('');
    assert.equal(reasoning, chat.reasoning_content);
    assert.equal(events.find((e) => e.type === 'response.reasoning_text.done').text, chat.reasoning_content);
    assert.ok(types.indexOf('response.reasoning_text.done') < types.indexOf('response.output_text.delta'));
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    assert.ok(deltas.every((e) => e.output_index === 1));
    assert.equal(deltas.map((e) => e.delta).join(''), chat.content);
    assert.deepEqual(events.at(-1).response.output.map((o) => o.content[0].text), [chat.reasoning_content, chat.content]);
  });

  it('reasoning.effort reaches the template as reasoning_effort does', async () => {
    const a = await client.responses.create({ model, input: 'Hi', max_output_tokens: 1, reasoning: { effort: 'low' } });
    const c = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1,
                                                      reasoning_effort: 'low' });
    assert.equal(a.usage.input_tokens, c.usage.prompt_tokens);
    const bad = await postJson(server.url + '/v1/responses', { model, input: 'Hi', reasoning: { effort: 'extreme' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.param, 'reasoning.effort', JSON.stringify(bad.json));
  });
});
