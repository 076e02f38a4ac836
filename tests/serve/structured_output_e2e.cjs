// `ogai serve` structured output through the real `openai` npm client: response_format
// json_schema (strict) and json_object on chat and completions, whole and streamed (the streamed
// text must equal the whole one), outputs validated by python3-jsonschema; an unenforceable
// schema is a 400 naming the keyword.
//   node structured_output_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('child_process');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');

const schema = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 10 }, age: { type: 'integer', minimum: 0, maximum: 99 },
                pets: { type: 'array', items: { enum: ['cat', 'dog'] }, maxItems: 2 } },
  required: ['name', 'age', 'pets'], additionalProperties: false,
};

// Errors of python3-jsonschema for `value` against `schema` ([] when valid).
function schemaErrors(schemaDoc, value) {
  const code = 'import json,sys,jsonschema\nd=json.load(sys.stdin)\n' +
    'print(json.dumps([e.message for e in jsonschema.Draft202012Validator(d["s"]).iter_errors(d["v"])]))';
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', code], { input: JSON.stringify({ s: schemaDoc, v: value }) }));
}

async function streamed(stream) {
  let text = '';
  let finish = null;
  for await (const chunk of stream) {
    const c = chunk.choices[0];
    if (!c) continue;
    text += c.delta ? (c.delta.content ?? '') : c.text;
    if (c.finish_reason) finish = c.finish_reason;
  }
  return { text, finish };
}

describe('structured output through ogai serve', () => {
  let server;
  let client;
  before(async () => {
    server = await startServer(ogai, stories);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); });

  const format = { type: 'json_schema', json_schema: { name: 'person', strict: true, schema } };

  it('chat json_schema: whole and streamed agree and validate, greedy and seeded', async () => {
    for (const sampling of [{ temperature: 0 }, { temperature: 0.9, seed: 3 }, { temperature: 1, seed: 4 }]) {
      const req = { model: 'stories260k', messages: [{ role: 'user', content: 'Tell me about Lily.' }],
                    max_tokens: 120, response_format: format, ...sampling };
      const whole = await client.chat.completions.create(req);
      const text = whole.choices[0].message.content;
      assert.equal(whole.choices[0].finish_reason, 'stop', text);
      assert.deepEqual(schemaErrors(schema, JSON.parse(text)), [], text);
      const s = await streamed(await client.chat.completions.create({ ...req, stream: true }));
      assert.equal(s.text, text);
      assert.equal(s.finish, 'stop');
    }
  });

  it('completions json_object gives a JSON object', async () => {
    const r = await client.completions.create({ model: 'stories260k', prompt: 'Once upon a time', max_tokens: 200,
                                                response_format: { type: 'json_object' }, temperature: 0.7, seed: 1 });
    const c = r.choices[0];
    if (c.finish_reason === 'stop') assert.equal(typeof JSON.parse(c.text), 'object', c.text);
    else assert.equal(c.finish_reason, 'length');
    assert.match(c.text, /^\s*\{/);
  });

  it('a length cut inside a value reports length', async () => {
    const r = await client.chat.completions.create({ model: 'stories260k', max_tokens: 4, response_format: format,
                                                     messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.choices[0].finish_reason, 'length');
  });

  it('a format ogai does not enforce is named in x-ogai-unenforced; an enforced one is not', async () => {
    const post = (sch) => fetch(server.url + '/v1/chat/completions', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'stories260k', max_tokens: 40, messages: [{ role: 'user', content: 'x' }],
                             response_format: { type: 'json_schema', json_schema: { name: 'f', schema: sch } } }) });
    const loose = await post({ type: 'object', properties: { t: { type: 'string', format: 'uri-template' } },
                               required: ['t'], additionalProperties: false });
    assert.equal(loose.status, 200);
    assert.equal(loose.headers.get('x-ogai-unenforced'), "format 'uri-template' at '#/properties/t/format'");
    const text = (await loose.json()).choices[0].message.content;
    if (text.endsWith('}')) assert.equal(typeof JSON.parse(text).t, 'string', text);
    const strict = await post({ type: 'string', format: 'ipv4' });
    assert.equal(strict.status, 200);
    assert.equal(strict.headers.get('x-ogai-unenforced'), null);
    const ip = (await strict.json()).choices[0].message.content;
    if (ip.endsWith('"')) assert.match(JSON.parse(ip), /^(\d{1,3}\.){3}\d{1,3}$/, ip);
  });

  it('an unenforceable schema is a 400 naming the keyword', async () => {
    const bad = { type: 'json_schema', json_schema: { name: 'b', schema: { type: 'object', minProperties: 2 } } };
    await assert.rejects(client.chat.completions.create({ model: 'stories260k', response_format: bad,
                                                          messages: [{ role: 'user', content: 'x' }] }),
      (e) => e.status === 400 && e.code === 'unsupported' && /'minProperties'/.test(e.message) &&
             /#\/minProperties/.test(e.message));
  });
});
