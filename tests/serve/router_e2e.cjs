// Many packages behind one `ogai serve` (src/serve/router/), through the real `openai` npm client:
// - `--models-dir DIR` with stories260k, tiny-e2b, a broken package and a folder that is no
//   package: /v1/models lists the three packages not loaded; a request loads its model on demand
//   and equals `ogai generate` on that package (greedy); the broken one answers its own requests
//   500 model_load_failed with its load error while the others keep answering; concurrent
//   requests to both models each equal the same request alone; embeddings, Responses, Messages
//   and /tokenize pick their model by the "model" field; /metrics labels each model's series;
//   POST /models/load and /models/unload; /ready over the states.
// - `ogai serve PKG PKG --models-max 1`: loading one model unloads the other (idle) one.
// - `--models-parallel 1`: concurrent requests to both models wait for the one place in turn and
//   each answers as alone (the gate itself: router_flight_test.cc).
// - `--models-memory-mb`: a model over the budget fails with the budget named; models that fit
//   evict the least recently used idle one.
// - `--api-key`: /models/load and /models/unload need the key like every route.
// - an Optimum export and an ONNX Runtime GenAI folder in --models-dir, imported at load, answer
//   as `ogai generate` does on them; with one package, a request without "model" reaches it.
//   node router_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('child_process');
const { promisify } = require('util');
const fs = require('fs');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const harness = require('./server_harness.cjs');
const { startServer, stopServer, http, postJson } = harness;

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const tinyE2b = path.join(process.env.OGAI_SOURCE_DIR, 'tests/data/packages/tiny-e2b');

// A models folder in the build directory: links to the packages (never copies), a broken package
// and a folder that is none. `links`: {id: target}.
function modelsDir(name, links, { broken = false } = {}) {
  const dir = path.join(process.env.OGAI_BINARY_DIR, `router_e2e_${name}_${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  for (const [id, target] of Object.entries(links)) fs.symlinkSync(target, path.join(dir, id));
  if (broken) {
    fs.mkdirSync(path.join(dir, 'broken'));
    fs.writeFileSync(path.join(dir, 'broken', 'inference_metadata.yaml'), 'schema_version: [\n');
    fs.mkdirSync(path.join(dir, 'notes'));
    fs.writeFileSync(path.join(dir, 'notes', 'README.txt'), 'no package here\n');
  }
  return dir;
}

async function cliGenerate(pkg, prompt, flags) {
  const { stdout } = await promisify(execFile)(ogai, ['generate', pkg, '--prompt', prompt, '--json', '--temperature',
                                                      '0', ...flags], { encoding: 'utf8' });
  return JSON.parse(stdout).text;
}

async function states(server) {
  const res = await http(server.url + '/v1/models');
  assert.equal(res.status, 200, res.text);
  return Object.fromEntries(res.json.data.map((m) => [m.id, m.state]));
}

// POST /models/unload, retried while it answers 409 model_busy: a request's hold on its model ends
// when its answer has been written, a moment after the client may have read it.
async function unload(server, model) {
  for (let i = 0; ; i++) {
    const res = await postJson(server.url + '/models/unload', { model });
    if (res.status !== 409 || res.json.error.code !== 'model_busy' || i === 100) return res;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function client(server, apiKey = 'unused') {
  return new OpenAI({ baseURL: server.url + '/v1', apiKey, maxRetries: 0 });
}

const chat = (model, content) => ({ model, messages: [{ role: 'user', content }], max_tokens: 12 });
const completion = (model, prompt) => ({ model, prompt, max_tokens: 16 });

// The servers below are independent: their suites run at once.
describe('many packages in one server', { concurrency: true }, () => {
  describe('ogai serve --models-dir: two packages, a broken one, one folder that is none', { concurrency: 1 }, () => {
    let server;
    let dir;
    before(async () => {
      dir = modelsDir('dir', { stories, tiny: tinyE2b }, { broken: true });
      server = await startServer(ogai, `--models-dir=${dir}`, [], { OGAI_LOG: 'info' });  // load lines on stderr
    });
    after(async () => {
      const end = await stopServer(server);
      fs.rmSync(dir, { recursive: true, force: true });
      assert.equal(end.code, 0, end.stderr);
    });

    it('lists every package folder, none loaded yet, and is ready', async () => {
      assert.deepEqual(await states(server), { broken: 'not_loaded', stories: 'not_loaded', tiny: 'not_loaded' });
      const ready = await http(server.url + '/ready');
      assert.equal(ready.status, 200, ready.text);
      assert.deepEqual(ready.json.models.not_loaded, ['broken', 'stories', 'tiny']);
      assert.match(server.stderr(), /models broken, stories, tiny, loaded on demand/);
    });

    it('loads a model on demand and answers as ogai generate does on that package', async () => {
      const expected = await cliGenerate(stories, 'Once upon a time', ['--max-new-tokens', '16']);
      const r = await client(server).completions.create(completion('stories', 'Once upon a time'));
      assert.equal(r.model, 'stories');
      assert.equal(r.choices[0].text, expected);
      assert.deepEqual(await states(server), { broken: 'not_loaded', stories: 'loaded', tiny: 'not_loaded' });
      const one = await http(server.url + '/v1/models/stories');
      assert.equal(one.json.state, 'loaded');
      assert.equal(one.json.context_length, 512);
    });

    it('answers the broken package with its load error, and the others keep serving', async () => {
      await assert.rejects(client(server).chat.completions.create(chat('broken', 'hi')), (e) => {
        assert.equal(e.status, 500);
        assert.equal(e.code, 'model_load_failed');
        assert.match(e.message, /model 'broken' failed to load: inference_metadata\.yaml.*malformed YAML/);
        return true;
      });
      const listed = (await http(server.url + '/v1/models/broken')).json;
      assert.equal(listed.state, 'failed');
      assert.match(listed.error, /malformed YAML/);
      assert.ok(!listed.error.includes(process.env.OGAI_BINARY_DIR), 'no server paths in errors');
      const again = await postJson(server.url + '/v1/completions', completion('broken', 'x'));  // no new load
      assert.equal(again.status, 500);
      assert.equal(again.json.error.code, 'model_load_failed');
      const r = await client(server).completions.create(completion('stories', 'Once upon a time'));
      assert.equal(r.choices[0].text, await cliGenerate(stories, 'Once upon a time', ['--max-new-tokens', '16']));
      assert.equal((await http(server.url + '/ready')).status, 200);
    });

    it('refuses an unknown model 404, naming the served ones', async () => {
      await assert.rejects(client(server).chat.completions.create(chat('nope', 'hi')), (e) => {
        assert.equal(e.status, 404);
        assert.equal(e.code, 'model_not_found');
        assert.match(e.message, /'nope'.*broken, stories, tiny/);
        return true;
      });
      const missing = await postJson(server.url + '/v1/completions', { prompt: 'x' });
      assert.equal(missing.status, 400);
      assert.match(missing.json.error.message, /model: required/);
    });

    it('gives concurrent requests to both models the text each gives alone', async () => {
      const c = client(server);
      const requests = [];
      for (let i = 0; i < 4; i++) {
        requests.push(() => c.completions.create(completion('stories', ['Once upon a time', 'Lily and Ben'][i % 2])));
        requests.push(() => c.chat.completions.create(chat('tiny', ['hello world', 'tell me'][i % 2])));
      }
      const text = (r) => r.choices[0].text ?? r.choices[0].message.content;
      const alone = [];
      for (const request of requests) alone.push(text(await request()));
      const together = (await Promise.all(requests.map((request) => request()))).map(text);
      assert.deepEqual(together, alone);
      assert.equal(alone[1], await cliGenerate(tinyE2b, 'hello world', ['--chat', '--max-new-tokens', '12']));
    });

    it('routes embeddings, Responses, Messages and /tokenize by their model field', async () => {
      const e = await client(server).embeddings.create({ model: 'tiny', input: 'hello', encoding_format: 'float' });
      assert.equal(e.model, 'tiny');
      assert.equal(e.data[0].embedding.length, 32);
      const r = await client(server).responses.create({ model: 'stories', input: 'Once upon a time', max_output_tokens: 8 });
      assert.equal(r.model, 'stories');
      assert.ok(r.output_text.length > 0);
      const stored = await http(server.url + `/v1/responses/${r.id}`);
      assert.equal(stored.status, 200, stored.text);
      const m = await postJson(server.url + '/v1/messages',
                               { model: 'tiny', max_tokens: 8, messages: [{ role: 'user', content: 'hello world' }] });
      assert.equal(m.status, 200, m.text);
      assert.equal(m.json.model, 'tiny');
      const broken = await postJson(server.url + '/v1/messages',
                                    { model: 'broken', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] });
      assert.equal(broken.status, 500);
      assert.equal(broken.json.type, 'error');  // Anthropic's error shape on its route
      for (const [model, pkg] of [['stories', stories], ['tiny', tinyE2b]]) {
        const t = await postJson(server.url + '/tokenize', { model, content: 'Once upon a time' });
        const { stdout } = await promisify(execFile)(ogai, ['tokenize', pkg, '--text', 'Once upon a time', '--no-special']);
        assert.deepEqual(t.json.tokens, JSON.parse(stdout), model);
      }
    });

    it('labels each model\'s generation series in /metrics', async () => {
      const text = (await http(server.url + '/metrics')).text;
      assert.ok(harness.metric(text, 'ogai_generated_tokens_total{model="stories"}') > 0, text);
      assert.ok(harness.metric(text, 'ogai_generated_tokens_total{model="tiny"}') > 0);
      assert.equal(harness.metric(text, 'ogai_model_state{model="broken",state="failed"}'), 1);
      assert.equal(harness.metric(text, 'ogai_model_state{model="tiny",state="loaded"}'), 1);
      assert.equal(text.split('\n').filter((l) => l === '# TYPE ogai_generated_tokens_total counter').length, 1);
      assert.ok(harness.metric(text, 'ogai_http_requests_total{endpoint="/v1/completions",status="500"}') >= 1);
      assert.ok(harness.metric(text, 'ogai_http_requests_total{endpoint="/v1/chat/completions",status="500"}') >= 1);
    });

    it('makes requests that arrive while a model loads wait for that one load', async () => {
      const loads = () => server.stderr().split('\n').filter((l) => l.includes("loading model 'tiny'")).length;
      const c = client(server);
      const alone = (await c.chat.completions.create(chat('tiny', 'hello world'))).choices[0].message.content;
      assert.equal((await unload(server, 'tiny')).status, 200);
      const before = loads();
      const answers = await Promise.all(Array.from({ length: 4 }, () => c.chat.completions.create(chat('tiny', 'hello world'))));
      for (const a of answers) assert.equal(a.choices[0].message.content, alone);
      assert.equal(loads(), before + 1, server.stderr());
      assert.equal((await states(server)).tiny, 'loaded');
    });

    it('unloads and loads models on request', async () => {
      let res = await unload(server, 'tiny');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.state, 'not_loaded');
      assert.equal((await states(server)).tiny, 'not_loaded');
      res = await postJson(server.url + '/models/load', { model: 'tiny' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.state, 'loaded');
      assert.equal(typeof res.json.in_flight, 'number');
      res = await postJson(server.url + '/models/load', { model: 'broken' });  // tried again: fails again
      assert.equal(res.status, 500);
      assert.match(res.json.error.message, /model 'broken' failed to load/);
      res = await postJson(server.url + '/models/unload', { model: 'nope' });
      assert.equal(res.status, 404);
      res = await postJson(server.url + '/models/load', {});
      assert.equal(res.status, 400);
      assert.equal((await http(server.url + '/models/load')).status, 405);
    });
  });

  describe('ogai serve PKG PKG --models-max 1', { concurrency: 1 }, () => {
    let server;
    before(async () => { server = await startServer(ogai, stories, [tinyE2b, '--models-max', '1']); });
    after(async () => { await stopServer(server); });

    it('unloads the idle model to load the other, answering as before', async () => {
      const c = client(server);
      const first = (await c.completions.create(completion('stories260k', 'Once upon a time'))).choices[0].text;
      assert.deepEqual(await states(server), { stories260k: 'loaded', 'tiny-e2b': 'not_loaded' });
      const tiny = (await c.chat.completions.create(chat('tiny-e2b', 'hello world'))).choices[0].message.content;
      assert.deepEqual(await states(server), { stories260k: 'not_loaded', 'tiny-e2b': 'loaded' });
      const again = (await c.completions.create(completion('stories260k', 'Once upon a time'))).choices[0].text;
      assert.equal(again, first);
      assert.deepEqual(await states(server), { stories260k: 'loaded', 'tiny-e2b': 'not_loaded' });
      assert.equal(tiny, await cliGenerate(tinyE2b, 'hello world', ['--chat', '--max-new-tokens', '12']));
    });

    it('serves concurrent requests to both, one model at a time, each as alone', async () => {
      const c = client(server);
      const alone = [(await c.completions.create(completion('stories260k', 'Lily and Ben'))).choices[0].text,
                     (await c.chat.completions.create(chat('tiny-e2b', 'tell me'))).choices[0].message.content];
      const requests = [];
      for (let i = 0; i < 3; i++) {
        requests.push(c.completions.create(completion('stories260k', 'Lily and Ben')).then((r) => r.choices[0].text));
        requests.push(c.chat.completions.create(chat('tiny-e2b', 'tell me')).then((r) => r.choices[0].message.content));
      }
      assert.deepEqual(await Promise.all(requests), [0, 1, 2, 3, 4, 5].map((i) => alone[i % 2]));
      const loaded = Object.values(await states(server)).filter((s) => s === 'loaded');
      assert.equal(loaded.length, 1);
    });
  });

  describe('ogai serve PKG PKG --models-parallel 1', { concurrency: 1 }, () => {
    let server;
    before(async () => {
      server = await startServer(ogai, stories, [tinyE2b, '--models-parallel', '1', '--models-queue', '8']);
    });
    after(async () => { await stopServer(server); });

    it('serves concurrent requests to both models one at a time, each as alone', async () => {
      const c = client(server);
      const alone = [(await c.completions.create(completion('stories260k', 'Lily and Ben'))).choices[0].text,
                     (await c.chat.completions.create(chat('tiny-e2b', 'tell me'))).choices[0].message.content];
      const requests = [];
      for (let i = 0; i < 4; i++) {
        requests.push(c.completions.create(completion('stories260k', 'Lily and Ben')).then((r) => r.choices[0].text));
        requests.push(c.chat.completions.create(chat('tiny-e2b', 'tell me')).then((r) => r.choices[0].message.content));
      }
      assert.deepEqual(await Promise.all(requests), [0, 1, 2, 3, 4, 5, 6, 7].map((i) => alone[i % 2]));
      // Every place was given back: a request after them is answered at once.
      assert.equal((await c.completions.create(completion('stories260k', 'Lily and Ben'))).choices[0].text, alone[0]);
    });

    it('refuses a --models-parallel out of range', async () => {
      await assert.rejects(promisify(execFile)(ogai, ['serve', stories, tinyE2b, '--models-parallel', '-1']),
                           (e) => /--models-parallel/.test(e.stderr));
    });
  });

  describe('ogai serve --models-memory-mb', { concurrency: 1 }, () => {
    let server;
    let dir;
    before(async () => {
      // stories260k's files take 1.17 MiB, tiny-e2b's 0.78 MiB: two fit in 2 MiB, three do not.
      dir = modelsDir('memory', { stories, tiny: tinyE2b, 'tiny-copy': tinyE2b });
      server = await startServer(ogai, `--models-dir=${dir}`, ['--models-memory-mb', '2']);
    });
    after(async () => {
      await stopServer(server);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('evicts the least recently used idle model to stay within the budget', async () => {
      const c = client(server);
      await c.completions.create(completion('stories', 'Once'));
      await c.completions.create(completion('tiny', 'hello'));
      assert.deepEqual(await states(server), { stories: 'loaded', tiny: 'loaded', 'tiny-copy': 'not_loaded' });
      await c.completions.create(completion('tiny-copy', 'hello'));
      assert.deepEqual(await states(server), { stories: 'not_loaded', tiny: 'loaded', 'tiny-copy': 'loaded' });
      const listed = (await http(server.url + '/v1/models')).json.data;
      assert.ok(listed.every((m) => m.bytes > 500000), JSON.stringify(listed));
    });
  });

  describe('ogai serve --models-memory-mb below a package', { concurrency: 1 }, () => {
    let server;
    before(async () => { server = await startServer(ogai, stories, [tinyE2b, '--models-memory-mb', '1']); });
    after(async () => { await stopServer(server); });

    it('fails that model with the budget named and serves the one that fits', async () => {
      const res = await postJson(server.url + '/v1/completions', completion('stories260k', 'Once'));
      assert.equal(res.status, 500);
      assert.match(res.json.error.message, /model 'stories260k' failed to load: .*more than the memory budget .*--models-memory-mb/);
      const ok = await postJson(server.url + '/v1/completions', completion('tiny-e2b', 'hello'));
      assert.equal(ok.status, 200, ok.text);
    });
  });

  describe('ogai serve PKG PKG --api-key', { concurrency: 1 }, () => {
    let server;
    before(async () => { server = await startServer(ogai, stories, [tinyE2b, '--api-key', 'k1']); });
    after(async () => { await stopServer(server); });

    it('keeps /models/load, /models/unload and the model routes behind the key', async () => {
      const body = JSON.stringify({ model: 'tiny-e2b' });
      for (const route of ['/models/load', '/models/unload']) {
        const res = await http(server.url + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        assert.equal(res.status, 401, route);
      }
      assert.deepEqual(await states(server).catch(() => null), null);  // /v1/models needs it too
      const auth = { 'content-type': 'application/json', authorization: 'Bearer k1' };
      const loaded = await http(server.url + '/models/load', { method: 'POST', headers: auth, body });
      assert.equal(loaded.status, 200, loaded.text);
      assert.equal(loaded.json.state, 'loaded');
      const r = await client(server, 'k1').completions.create(completion('tiny-e2b', 'hello'));
      assert.equal(r.model, 'tiny-e2b');
    });
  });

  describe('ogai serve --models-dir with an Optimum export and an ONNX Runtime GenAI folder', { concurrency: 1 }, () => {
    const optimum = path.join(process.env.OGAI_BINARY_DIR, 'optimum_folders/optimum-llama');
    const genai = path.join(process.env.OGAI_BINARY_DIR, 'importer_folders/builder-llama');
    let server;
    let dir;
    before(async () => {
      dir = modelsDir('formats', { optimum, genai });
      server = await startServer(ogai, `--models-dir=${dir}`);
    });
    after(async () => {
      await stopServer(server);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('imports each in memory at load and answers as ogai generate does on the folder', async () => {
      assert.deepEqual(await states(server), { genai: 'not_loaded', optimum: 'not_loaded' });
      for (const [id, folder] of [['optimum', optimum], ['genai', genai]]) {
        const r = await client(server).completions.create(completion(id, 'Once upon a time'));
        assert.equal(r.choices[0].text, await cliGenerate(folder, 'Once upon a time', ['--max-new-tokens', '16']), id);
      }
      assert.deepEqual(await states(server), { genai: 'loaded', optimum: 'loaded' });
    });
  });

  describe('ogai serve --models-dir holding one package', { concurrency: 1 }, () => {
    let server;
    let dir;
    before(async () => {
      dir = modelsDir('one', { stories });
      server = await startServer(ogai, `--models-dir=${dir}`);
    });
    after(async () => {
      await stopServer(server);
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('answers as the one-model server does: requests without model go to it, unknown ids are refused', async () => {
      const r = await client(server).completions.create(completion('stories', 'Once upon a time'));
      assert.equal(r.choices[0].text, await cliGenerate(stories, 'Once upon a time', ['--max-new-tokens', '16']));
      const tokens = await postJson(server.url + '/tokenize', { content: 'Once upon a time' });  // no model field
      assert.equal(tokens.status, 200, tokens.text);
      const { stdout } = await promisify(execFile)(ogai, ['tokenize', stories, '--text', 'Once upon a time', '--no-special']);
      assert.deepEqual(tokens.json.tokens, JSON.parse(stdout));
      const missing = await postJson(server.url + '/v1/completions', { prompt: 'x' });  // its parser: model required
      assert.equal(missing.status, 400);
      assert.match(missing.json.error.message, /model: required \(the id GET \/v1\/models lists\)/);
      const unknown = await postJson(server.url + '/v1/completions', completion('other', 'x'));
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json.error.code, 'model_not_found');
    });
  });
});
