// Issue 37 item 1: no request can crash the server. A schema that is one object with tens of
// thousands of properties (under --max-grammar-bytes) once overflowed the stack while its grammar
// was built; every route that compiles a grammar gets one here (chat response_format, Responses
// text.format, chat tools with tool_choice required, Anthropic tools with tool_choice any), and
// after each the server still answers a normal completion. Response ids carry 128 random bits,
// and with several API keys a stored response is readable only with the key that created it.
//   node wide_schema_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startServer, stopServer, postJson, http } = require('./server_harness.cjs');
const { packageWith } = require('./tool_package.cjs');

const ogai = process.argv[2];
const WIDTH = Number(process.env.OGAI_WIDE_SCHEMA_WIDTH || 30000);
const MODEL = 'wide';

function wideObject(width) {
  const properties = {};
  for (let i = 0; i < width; ++i) properties[`p${i}`] = { type: 'string' };
  return { type: 'object', properties };
}

// The answer must be a reply or a 4xx naming the problem, never a dropped connection.
function answered(res, route) {
  assert.ok(res.status === 200 || (res.status >= 400 && res.status < 500), `${route}: status ${res.status} ${res.text}`);
  if (res.status !== 200) assert.ok(res.json && res.json.error, `${route}: an error body: ${res.text}`);
}

async function stillServes(server) {
  const res = await postJson(server.url + '/v1/completions', { model: MODEL, prompt: 'Hello', max_tokens: 2 });
  assert.equal(res.status, 200, res.text);
}

describe('ogai serve: a schema as wide as the size budget allows', () => {
  let server;
  let tmp;
  const schema = wideObject(WIDTH);
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai-wide-'));
    server = await startServer(ogai, packageWith('qwen2.5.tokenizer_config.json', tmp),
                               ['--model-name', MODEL]);
    assert.ok(JSON.stringify(schema).length < (1 << 20), 'the schema is under the default --max-grammar-bytes');
  });
  after(async () => {
    const end = await stopServer(server);
    fs.rmSync(tmp, { recursive: true, force: true });
    assert.equal(end.code, 0, end.stderr);
  });

  const routes = {
    'chat response_format': (url) => postJson(url + '/v1/chat/completions', {
      model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4,
      response_format: { type: 'json_schema', json_schema: { name: 'wide', schema } } }),
    'responses text.format': (url) => postJson(url + '/v1/responses', {
      model: MODEL, input: 'hi', max_output_tokens: 4, store: false,
      text: { format: { type: 'json_schema', name: 'wide', schema } } }),
    'chat tools, tool_choice required': (url) => postJson(url + '/v1/chat/completions', {
      model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, tool_choice: 'required',
      tools: [{ type: 'function', function: { name: 'wide', parameters: schema } }] }),
    'messages tools, tool_choice any': (url) => postJson(url + '/v1/messages', {
      model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, tool_choice: { type: 'any' },
      tools: [{ name: 'wide', input_schema: schema }] }),
  };
  for (const [route, send] of Object.entries(routes)) {
    it(`${route}: answered, and the server keeps serving`, async () => {
      answered(await send(server.url), route);
      await stillServes(server);
    });
  }
});

// A schema over --max-grammar-bytes is refused while the body is read (json_limits.h GrammarPath):
// each body below holds 1.2 MB of schema (limit 1 MiB) and then breaks off into bytes that are not
// JSON. The answer is the grammar budget's 400, not the syntax error at the end of the body, so
// the server refused before it had read the rest (no DOM, translation or dump of it).
describe('ogai serve: a schema over --max-grammar-bytes is refused within the parse', () => {
  let server;
  let tmp;
  const schema = JSON.stringify(wideObject(40000));
  const broken = ', "oops" ][';
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai-wide-'));
    server = await startServer(ogai, packageWith('qwen2.5.tokenizer_config.json', tmp), ['--model-name', MODEL]);
    assert.ok(schema.length > (1 << 20), `the schema (${schema.length} bytes) is over the default limit`);
  });
  after(async () => {
    const end = await stopServer(server);
    fs.rmSync(tmp, { recursive: true, force: true });
    assert.equal(end.code, 0, end.stderr);
  });
  const user = '"messages":[{"role":"user","content":"hi"}]';
  const cases = [
    ['/v1/chat/completions', 'tools', `{"model":"${MODEL}",${user},"tools":[{"type":"function","function":{"name":"w","parameters":${schema}`],
    ['/v1/chat/completions', 'response_format', `{"model":"${MODEL}",${user},"response_format":{"type":"json_schema","json_schema":{"name":"w","schema":${schema}`],
    ['/v1/completions', 'response_format', `{"model":"${MODEL}","prompt":"hi","response_format":{"type":"json_schema","json_schema":{"name":"w","schema":${schema}`],
    ['/v1/responses', 'tools', `{"model":"${MODEL}","input":"hi","tools":[{"type":"function","name":"w","parameters":${schema}`],
    ['/v1/responses', 'text.format', `{"model":"${MODEL}","input":"hi","text":{"format":{"type":"json_schema","name":"w","schema":${schema}`],
    ['/v1/messages', 'tools', `{"model":"${MODEL}","max_tokens":4,${user},"tools":[{"name":"w","input_schema":${schema}`],
    ['/v1/messages/count_tokens', 'tools', `{"model":"${MODEL}",${user},"tools":[{"name":"w","input_schema":${schema}`],
  ];
  for (const [route, param, body] of cases) {
    it(`${route} ${param}: a 400 grammar_too_large before the end of the body`, async () => {
      const res = await postJson(server.url + route, body + broken);
      assert.equal(res.status, 400, res.text);
      const error = res.json.error;
      assert.match(error.message, /--max-grammar-bytes/);
      if (route.startsWith('/v1/messages')) assert.equal(res.json.type, 'error');
      else assert.equal(error.code, 'grammar_too_large', res.text);
      if (error.param !== undefined) assert.equal(error.param, param);
      await stillServes(server);
    });
  }
});

describe('ogai serve: response ids and stored responses', () => {
  let server;
  const keys = ['sk-tenant-a', 'sk-tenant-b'];
  const as = (key) => ({ 'Content-Type': 'application/json', Authorization: `Bearer ${key}` });
  const post = async (url, body, key) => {
    const res = await http(url, { method: 'POST', headers: as(key), body: JSON.stringify(body) });
    return res;
  };
  before(async () => {
    const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
    server = await startServer(ogai, stories, ['--model-name', MODEL, '--api-key', keys[0], '--api-key', keys[1]]);
  });
  after(async () => {
    const end = await stopServer(server);
    assert.equal(end.code, 0, end.stderr);
  });

  it('ids carry 128 bits, all different', async () => {
    const ids = new Set();
    for (let i = 0; i < 4; ++i) {
      const res = await post(server.url + '/v1/completions', { model: MODEL, prompt: 'Hi', max_tokens: 1 }, keys[0]);
      assert.equal(res.status, 200, res.text);
      assert.match(res.json.id, /^cmpl-[0-9a-f]{32}$/);
      ids.add(res.json.id);
    }
    assert.equal(ids.size, 4);
  });

  it('a stored response is read and continued only with the key that created it', async () => {
    const made = await post(server.url + '/v1/responses', { model: MODEL, input: 'Lily', max_output_tokens: 3 }, keys[0]);
    assert.equal(made.status, 200, made.text);
    const id = made.json.id;
    assert.match(id, /^resp_[0-9a-f]{32}$/);
    const own = await http(`${server.url}/v1/responses/${id}`, { headers: as(keys[0]) });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.json.id, id);
    const other = await http(`${server.url}/v1/responses/${id}`, { headers: as(keys[1]) });
    assert.equal(other.status, 404, other.text);
    const cont = await post(server.url + '/v1/responses',
                            { model: MODEL, input: 'more', previous_response_id: id, max_output_tokens: 2 }, keys[1]);
    assert.equal(cont.status, 404, cont.text);
    assert.equal(cont.json.error.code, 'previous_response_not_found');
    const mine = await post(server.url + '/v1/responses',
                            { model: MODEL, input: 'more', previous_response_id: id, max_output_tokens: 2 }, keys[0]);
    assert.equal(mine.status, 200, mine.text);
  });

  it('metadata is held to OpenAI bounds', async () => {
    const metadata = {};
    for (let i = 0; i < 17; ++i) metadata[`k${i}`] = 'v';
    const res = await post(server.url + '/v1/responses', { model: MODEL, input: 'x', max_output_tokens: 1, metadata }, keys[0]);
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.error.message, /at most 16 pairs/);
  });

  it('/metrics shows the store', async () => {
    const res = await http(server.url + '/metrics', { headers: as(keys[0]) });
    assert.match(res.text, /^ogai_responses_store_entries [1-9]/m);
    assert.match(res.text, /^ogai_responses_store_bytes [1-9]/m);
    assert.match(res.text, /^ogai_responses_store_max_bytes 67108864$/m);
  });
});
