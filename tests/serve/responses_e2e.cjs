// POST /v1/responses through the real `openai` npm client (client.responses.create) on
// stories260k: a string input and a messages input with instructions, whole and streamed. Greedy
// output must equal the same conversation through chat completions; streamed events must come in
// OpenAI's order with increasing sequence numbers, and their deltas must join to the final text;
// max_output_tokens ends a response as incomplete; unsupported features are 400s naming the field.
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
    assert.match(r.id, /^resp_[0-9a-f]{16}$/);
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

  it('refuses what it does not implement with a 400 naming the field', async () => {
    const cases = [
      [{ input: 'x', tools: [{ type: 'function', name: 'f', parameters: {} }] }, 'tools'],
      [{ input: 'x', previous_response_id: 'resp_1' }, 'previous_response_id'],
      [{ input: [{ type: 'function_call_output', call_id: 'c', output: 'o' }] }, 'input[0].type'],
      [{ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://x' }] }] }, 'input[0].content[0].type'],
      [{ input: 'x', text: { format: { type: 'json_schema', name: 's', schema: {} } } }, 'text.format'],
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
