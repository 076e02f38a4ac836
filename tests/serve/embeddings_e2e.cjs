// POST /v1/embeddings (issue 26 item 3) through the real `openai` client and plain HTTP against
// `ogai serve` on tiny-e2b, whose decoder declares hidden_states.9 (the post-final-norm state):
// - every vector equals a numpy computation on the same graph (tests/serve/numpy_graph.py: the
//   decoder evaluated node by node, pooled and L2-normalized in numpy) within 1e-4, for last-token
//   pooling (the default) and --pooling mean, short inputs and ones past the sliding window;
// - a text and its token ids agree; base64 decodes to the floats of encoding_format float; an
//   array of 3 inputs (batched in one run) gives indexes 0..2 equal to single requests;
// - usage.prompt_tokens counts the inputs' tokens; `dimensions` other than the width is a 400;
// - malformed inputs, a token id out of the vocabulary, an input past the context, an unknown
//   model, an unknown field under --strict-requests get their 4xx naming the field; stories260k, which has no hidden-state output, a 400
//   saying why.
//   node embeddings_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('child_process');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer, postJson } = require('./server_harness.cjs');

const ogai = process.argv[2];
const tinyE2b = path.join(process.env.OGAI_SOURCE_DIR, 'tests/data/packages/tiny-e2b');
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const WIDTH = 32;       // tiny-e2b's hidden size
const CONTEXT = 512;    // its max_sequence_length
const TOLERANCE = 1e-4;

const SHORT = 'hello world';
const LONG = 'Once upon a time there was a little girl who loved to play in the garden with her dog every day';

// numpy's vectors for token-id inputs (tests/serve/numpy_graph.py on the same model.onnx).
function numpyVectors(inputs, pooling = 'last') {
  const script = path.join(__dirname, 'numpy_graph.py');
  const r = spawnSync('/usr/bin/python3', [script, path.join(tinyE2b, 'model.onnx'), 'hidden_states.9',
                                           '--pooling', pooling],
                      { input: JSON.stringify(inputs), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).vectors;
}

function assertClose(actual, expected, tolerance, what) {
  assert.equal(actual.length, expected.length, `${what}: width`);
  let worst = 0;
  for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
  assert.ok(worst <= tolerance, `${what}: differs by ${worst} (> ${tolerance})`);
}

function norm(v) { return Math.sqrt(v.reduce((s, x) => s + x * x, 0)); }

function decodeBase64(text) {
  const bytes = Buffer.from(text, 'base64');
  return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
}

async function tokenize(server, text) {
  const res = await postJson(server.url + '/tokenize', { content: text, add_special: true });
  assert.equal(res.status, 200, res.text);
  return res.json.tokens;
}

async function embedHttp(server, body) {
  const res = await postJson(server.url + '/v1/embeddings', { model: 'tiny-e2b', ...body });
  assert.equal(res.status, 200, res.text);
  return res.json;
}

function assertError(res, status, param, pattern) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.json.error.param, param, res.text);
  assert.match(res.json.error.message, pattern);
}

describe('POST /v1/embeddings on tiny-e2b (last-token pooling, the default)', () => {
  let server;
  let client;
  before(async () => {
    server = await startServer(ogai, tinyE2b);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); });

  it('the openai client\'s embeddings.create equals numpy on the same graph', async () => {
    const ids = [await tokenize(server, SHORT), await tokenize(server, LONG)];
    assert.ok(ids[1].length > 16, 'the long input crosses the sliding window of 8');
    const expected = numpyVectors(ids);
    const res = await client.embeddings.create({ model: 'tiny-e2b', input: [SHORT, LONG] });  // base64 on the wire
    assert.equal(res.object, 'list');
    assert.equal(res.model, 'tiny-e2b');
    assert.deepEqual(res.data.map((d) => [d.object, d.index]), [['embedding', 0], ['embedding', 1]]);
    for (let i = 0; i < 2; i++) {
      assertClose(res.data[i].embedding, expected[i], TOLERANCE, `input ${i}`);
      assert.ok(Math.abs(norm(res.data[i].embedding) - 1) < 1e-5);
    }
    assert.deepEqual(res.usage, { prompt_tokens: ids[0].length + ids[1].length,
                                  total_tokens: ids[0].length + ids[1].length });
    const floats = await client.embeddings.create({ model: 'tiny-e2b', input: LONG, encoding_format: 'float' });
    assertClose(floats.data[0].embedding, expected[1], TOLERANCE, 'encoding_format float');
  });

  it('a text and its token ids agree, and base64 holds the very floats of encoding_format float', async () => {
    const ids = await tokenize(server, LONG);
    const text = await embedHttp(server, { input: LONG });
    const tokens = await embedHttp(server, { input: ids });
    const nested = await embedHttp(server, { input: [ids] });
    assert.deepEqual(tokens.data[0].embedding, text.data[0].embedding);
    assert.deepEqual(nested.data[0].embedding, text.data[0].embedding);
    assert.equal(text.usage.prompt_tokens, ids.length);
    const b64 = await embedHttp(server, { input: LONG, encoding_format: 'base64' });
    assert.equal(typeof b64.data[0].embedding, 'string');
    assert.deepEqual(decodeBase64(b64.data[0].embedding), text.data[0].embedding.map(Math.fround));
  });

  it('an array of 3 inputs gives indexes 0..2, each equal to its single request', async () => {
    const inputs = ['a', LONG, 'the cat sat on the mat'];
    const batch = await embedHttp(server, { input: inputs });
    assert.deepEqual(batch.data.map((d) => d.index), [0, 1, 2]);
    let tokens = 0;
    for (let i = 0; i < 3; i++) {
      const one = await embedHttp(server, { input: inputs[i] });
      assertClose(batch.data[i].embedding, one.data[0].embedding, 1e-5, `input ${i} batched vs alone`);
      tokens += one.usage.prompt_tokens;
    }
    assert.equal(batch.usage.prompt_tokens, tokens);
    const ids = await Promise.all(inputs.map((t) => tokenize(server, t)));
    const expected = numpyVectors(ids);
    for (let i = 0; i < 3; i++) assertClose(batch.data[i].embedding, expected[i], TOLERANCE, `batched input ${i}`);
  });

  it('dimensions equal to the width is accepted, any other is a 400', async () => {
    const ok = await embedHttp(server, { input: SHORT, dimensions: WIDTH, user: 'someone' });
    assert.equal(ok.data[0].embedding.length, WIDTH);
    assertError(await postJson(server.url + '/v1/embeddings', { model: 'tiny-e2b', input: SHORT, dimensions: 8 }),
                400, 'dimensions', /8.*32/);
    await assert.rejects(client.embeddings.create({ model: 'tiny-e2b', input: SHORT, dimensions: 16 }),
                         (e) => e.status === 400 && /dimensions/.test(e.message));
  });

  it('refuses malformed requests with a 4xx naming the field, and keeps serving', async () => {
    const post = (body) => postJson(server.url + '/v1/embeddings', body);
    assertError(await post({ model: 'tiny-e2b' }), 400, 'input', /required/);
    assertError(await post({ model: 'tiny-e2b', input: [] }), 400, 'input', /at least one/);
    assertError(await post({ model: 'tiny-e2b', input: '' }), 400, 'input', /empty/);
    assertError(await post({ model: 'tiny-e2b', input: ['a', 3] }), 400, 'input', /input\[1\]/);
    assertError(await post({ model: 'tiny-e2b', input: [[1, 2], []] }), 400, 'input', /input\[1\].*empty/);
    assertError(await post({ model: 'tiny-e2b', input: [1, -2] }), 400, 'input', /input\[1\].*token id/);
    assertError(await post({ model: 'tiny-e2b', input: { text: 'a' } }), 400, 'input', /must be a string/);
    assertError(await post({ model: 'tiny-e2b', input: [[5, 600]] }), 400, 'input', /input\[0\].*600.*515/);
    const tooLong = Array.from({ length: CONTEXT + 1 }, (_, i) => 3 + (i % 500));
    assertError(await post({ model: 'tiny-e2b', input: [[5, 6], tooLong] }), 400, 'input',
                /input\[1\].*513 tokens.*context of 512/);
    assertError(await post({ model: 'tiny-e2b', input: 'a', encoding_format: 'int8' }), 400, 'encoding_format',
                /'float' or 'base64'/);
    assertError(await post({ model: 'tiny-e2b', input: 'a', dimensions: 0 }), 400, 'dimensions', /at least 1/);
    assertError(await post({ input: 'a' }), 400, 'model', /required/);
    assertError(await post({ model: 'other', input: 'a' }), 404, 'model', /does not exist/);
    const many = Array.from({ length: 2049 }, () => 'a');
    assertError(await post({ model: 'tiny-e2b', input: many }), 400, 'input', /2048/);
    const ok = await embedHttp(server, { input: SHORT });
    assert.equal(ok.data.length, 1);
  });
});

describe('ogai serve --pooling mean --strict-requests', () => {
  let server;
  before(async () => { server = await startServer(ogai, tinyE2b, ['--pooling', 'mean', '--strict-requests']); });
  after(async () => { await stopServer(server); });

  it('averages over the input\'s tokens, as numpy does, and differs from last-token pooling', async () => {
    const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
    const ids = [await tokenize(server, SHORT), await tokenize(server, LONG)];
    const mean = numpyVectors(ids, 'mean');
    const last = numpyVectors(ids, 'last');
    const res = await client.embeddings.create({ model: 'tiny-e2b', input: ids });
    for (let i = 0; i < 2; i++) {
      assertClose(res.data[i].embedding, mean[i], TOLERANCE, `mean input ${i}`);
      assert.ok(Math.max(...mean[i].map((x, k) => Math.abs(x - last[i][k]))) > 1e-2, 'pooling changes the vector');
    }
  });

  it('refuses unknown fields under --strict-requests, and other methods with 405', async () => {
    const res = await postJson(server.url + '/v1/embeddings', { model: 'tiny-e2b', input: 'a', pooling: 'last' });
    assertError(res, 400, 'pooling', /pooling/);
    assert.equal(res.json.error.code, 'unknown_field');
    const get = await fetch(server.url + '/v1/embeddings');
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
  });
});

describe('a package without a hidden-state output', () => {
  let server;
  before(async () => { server = await startServer(ogai, stories); });
  after(async () => { await stopServer(server); });

  it('answers 400 saying why (stories260k declares no hidden_states output)', async () => {
    const res = await postJson(server.url + '/v1/embeddings', { model: 'stories260k', input: 'Once upon a time' });
    assertError(res, 400, 'model', /cannot produce embeddings.*hidden_states/);
    const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
    await assert.rejects(client.embeddings.create({ model: 'stories260k', input: 'Once' }),
                         (e) => e.status === 400 && /hidden_states/.test(e.message));
  });
});

describe('--help', () => {
  it('shows --pooling with its choices and default', () => {
    const r = spawnSync(ogai, ['serve', '--help'], { encoding: 'utf8' });
    assert.match(r.stdout, /--pooling TEXT:\{last,mean\}=last\s[^\n]*hidden states/);
  });
});
