// The server's utility routes and operator controls (issue 26 items 5 and 6), through the real
// `openai` client and plain HTTP against `ogai serve`:
// - POST /tokenize and /detokenize in llama.cpp's shapes, compared with `ogai tokenize` (itself
//   proven equal to Hugging Face's tokenizers by tokenizer_differential) and round-tripped;
// - GET /version and the ogai_build_info series equal `ogai --version`;
// - --model-name repeated: every alias is listed and accepted, answers name the first, others 404;
// - --ctx-size caps the context /v1/models reports and the prompt room.
//   node utility_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile, spawnSync } = require('child_process');
const { promisify } = require('util');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer, http, postJson, metric } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');

async function run(args) {
  const { stdout } = await promisify(execFile)(ogai, args, { encoding: 'utf8' });
  return stdout;
}

describe('utility routes and operator controls', () => {
  let server;
  before(async () => {
    server = await startServer(ogai, stories,
                               ['--model-name', 'main', '--model-name', 'alias-a', '--model-name', 'alias-b',
                                '--ctx-size', '100']);
  });
  after(async () => { await stopServer(server); });

  for (const [text, special] of [['Once upon a time, Lily', false], ['Tom   saw\na cat. ', true], ['', false]]) {
    it(`tokenizes ${JSON.stringify(text)} (add_special ${special}) as ogai tokenize does`, async () => {
      const expected = JSON.parse(await run(['tokenize', stories, '--text', text, ...(special ? [] : ['--no-special'])]));
      const res = await postJson(server.url + '/tokenize', { content: text, add_special: special });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.tokens, expected);
      const back = await postJson(server.url + '/detokenize', { tokens: expected });
      assert.equal(back.status, 200, back.text);
      const decoded = spawnSync(ogai, ['tokenize', stories, '--decode'],
                                { input: JSON.stringify(expected), encoding: 'utf8' });
      assert.equal(decoded.status, 0, decoded.stderr);
      assert.equal(back.json.content, decoded.stdout);
    });
  }

  it('with_pieces gives each id with its text, pieces joining to the text', async () => {
    const text = 'Lily and Ben';
    const res = await postJson(server.url + '/tokenize', { content: text, with_pieces: true });
    assert.equal(res.status, 200, res.text);
    const plain = await postJson(server.url + '/tokenize', { content: text });
    assert.deepEqual(res.json.tokens.map((t) => t.id), plain.json.tokens);
    for (const t of res.json.tokens) assert.ok(typeof t.piece === 'string' || Array.isArray(t.piece));
    assert.match(res.json.tokens.map((t) => t.piece).join(''), /Lily/);
  });

  it('refuses malformed bodies with a 400 naming the field, and keeps serving', async () => {
    for (const [route, body, param] of [
      ['/tokenize', {}, 'content'], ['/tokenize', { content: 3 }, 'content'],
      ['/tokenize', { content: 'x', add_special: 'yes' }, 'add_special'],
      ['/detokenize', { tokens: 'abc' }, 'tokens'], ['/detokenize', { tokens: [1, -2] }, 'tokens'],
      ['/detokenize', { tokens: [1, 1e9] }, 'tokens'], ['/detokenize', { tokens: [1.5] }, 'tokens'],
    ]) {
      const res = await postJson(server.url + route, body);
      assert.equal(res.status, 400, `${route} ${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.json.error.param, param);
    }
    const bad = await postJson(server.url + '/tokenize', '{"content": ');
    assert.equal(bad.status, 400);
    const wrongMethod = await http(server.url + '/tokenize');
    assert.equal(wrongMethod.status, 405);
    assert.equal((await http(server.url + '/health')).status, 200);
  });

  it('GET /version and ogai_build_info name the versions ogai --version prints', async () => {
    const line = (await run(['--version'])).trim();  // "ogai X (ONNX Runtime Y)"
    const m = /^ogai (\S+) \(ONNX Runtime (\S+)\)$/.exec(line);
    assert.ok(m, line);
    const res = await http(server.url + '/version');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.version, m[1]);
    assert.equal(res.json.onnxruntime, m[2]);
    assert.equal(res.json.model, 'main');
    const metrics = (await http(server.url + '/metrics')).text;
    assert.equal(metric(metrics, `ogai_build_info{version="${m[1]}",onnxruntime="${m[2]}"}`), 1);
  });

  it('serves every --model-name alias, answering with the first, and 404s others', async () => {
    const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
    const list = await client.models.list();
    assert.deepEqual(list.data.map((m) => m.id), ['main', 'alias-a', 'alias-b']);
    for (const id of ['main', 'alias-a', 'alias-b']) {
      const r = await client.completions.create({ model: id, prompt: 'Once', max_tokens: 3, temperature: 0 });
      assert.equal(r.model, 'main');
      assert.equal((await client.models.retrieve(id)).id, id);
    }
    await assert.rejects(client.completions.create({ model: 'other', prompt: 'Once', max_tokens: 2 }),
                         (e) => e.status === 404);
  });

  it('--ctx-size caps the context the server reports and admits', async () => {
    const res = await http(server.url + '/v1/models/main');
    assert.equal(res.json.context_length, 100);
    const long = 'Once upon a time there was a little girl named Lily. '.repeat(20);
    const r = await postJson(server.url + '/v1/completions', { model: 'main', prompt: long, max_tokens: 2 });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.error.code, 'context_length_exceeded');
    const ok = await postJson(server.url + '/v1/completions', { model: 'main', prompt: 'Once', max_tokens: 500,
                                                               temperature: 0 });
    assert.equal(ok.status, 200, ok.text);
    assert.ok(ok.json.usage.prompt_tokens + ok.json.usage.completion_tokens <= 100, JSON.stringify(ok.json.usage));
  });
});
