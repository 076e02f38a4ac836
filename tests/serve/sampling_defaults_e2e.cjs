// The server's sampling defaults (issue 26 item 1), through the real `openai` client:
// - a request that leaves the sampling fields out is sampled at OpenAI's defaults (temperature 1):
//   unseeded repeats differ, a seed repeats its answer and equals temperature 1 spelled out, and
//   `top_p: 1` (OpenAI's "off") changes nothing; `temperature: 0` is greedy; `ogai generate` with no
//   sampling flag samples the same way (the same seed, the same text: one default);
// - with a generation_config.json that sets sampling values, a request that leaves them out gets
//   them: a seeded run equals the same request with those values spelled out;
// - `ogai serve --temperature/--top-k/--seed` set the values of fields a request leaves out, and a
//   default out of its range stops the server at start naming the flag's field.
//   node sampling_defaults_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const MODEL = 'stories260k';
const PROMPT = 'Once upon a time';

function clientOf(server) {
  return new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
}

async function complete(client, extra = {}) {
  const r = await client.completions.create({ model: MODEL, prompt: PROMPT, max_tokens: 24, ...extra });
  return r.choices[0].text;
}

// A copy of stories260k whose generation_config.json asks for sampling with its own values.
function packageWithSampling(dir) {
  const dst = path.join(dir, MODEL);
  fs.cpSync(stories, dst, { recursive: true });
  const file = path.join(dst, 'generation_config.json');
  const config = JSON.parse(fs.readFileSync(file, 'utf8'));
  Object.assign(config, { do_sample: true, temperature: 0.6, top_k: 5 });
  fs.writeFileSync(file, JSON.stringify(config));
  return dst;
}

describe('sampling defaults: OpenAI\'s where the package sets none', () => {
  let server;
  let client;
  before(async () => {
    server = await startServer(ogai, stories, [], {}, { openaiDefaults: true });
    client = clientOf(server);
  });
  after(async () => { await stopServer(server); });

  it('samples a request that sets no temperature: unseeded repeats differ', async () => {
    const texts = new Set();
    for (let i = 0; i < 6; i++) texts.add(await complete(client));
    assert.ok(texts.size >= 2, `six unseeded requests gave one answer: ${[...texts]}`);
  });

  it('repeats a seeded answer, equal to temperature 1 spelled out; top_p 1 changes nothing', async () => {
    for (const seed of [1, 2]) {
      const left = await complete(client, { seed });
      assert.equal(await complete(client, { seed }), left);
      assert.equal(await complete(client, { seed, temperature: 1 }), left);
      assert.equal(await complete(client, { seed, top_p: 1 }), left);
    }
  });

  it('is greedy at temperature 0, whatever the seed', async () => {
    const greedy = await complete(client, { temperature: 0 });
    assert.equal(await complete(client, { temperature: 0, seed: 5 }), greedy);
    assert.equal(await complete(client, { temperature: 0, top_p: 1 }), greedy);
    const cli = spawnSync(ogai, ['generate', stories, '--prompt', PROMPT, '--max-new-tokens', '24', '--temperature', '0',
                                 '--json'], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).text, greedy, 'the CLI at --temperature 0');
  });

  it('is the CLI\'s default too: the same seed, the same sampled answer (docs/cli.md#sampling-default)', async () => {
    const served = await complete(client, { seed: 5 });
    const cli = spawnSync(ogai, ['generate', stories, '--prompt', PROMPT, '--max-new-tokens', '24', '--seed', '5', '--json'],
                          { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).text, served, 'the CLI samples by default as the server does');
  });
});

describe('sampling defaults: the package\'s generation_config.json', () => {
  let server;
  let client;
  let dir;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai-sampling-'));
    server = await startServer(ogai, packageWithSampling(dir), [], {}, { openaiDefaults: true });
    client = clientOf(server);
  });
  after(async () => {
    await stopServer(server);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fills the fields a request leaves out with the package\'s values', async () => {
    let differs = 0;
    for (const seed of [3, 4, 5]) {
      const left = await complete(client, { seed });
      assert.equal(await complete(client, { seed, temperature: 0.6, top_k: 5 }), left);
      if (await complete(client, { seed, temperature: 1, top_k: 0 }) !== left) differs++;
    }
    assert.ok(differs > 0, 'the package\'s values made no difference against temperature 1, top_k 0');
  });
});

describe('sampling defaults: ogai serve --temperature, --top-k, --seed', () => {
  let server;
  let plain;
  before(async () => {
    server = await startServer(ogai, stories, ['--temperature', '0.5', '--top-k', '3', '--seed', '11']);
    plain = await startServer(ogai, stories, [], {}, { openaiDefaults: true });
  });
  after(async () => {
    await stopServer(server);
    await stopServer(plain);
  });

  it('uses the server\'s values for the fields a request leaves out', async () => {
    const client = clientOf(server);
    const spelled = await complete(clientOf(plain), { temperature: 0.5, top_k: 3, seed: 11 });
    assert.equal(await complete(client), spelled);
    assert.equal(await complete(client), spelled, 'a server-wide seed repeats the answer');
    assert.equal(await complete(client, { temperature: 0 }), await complete(clientOf(plain), { temperature: 0 }));
  });

  it('refuses a default outside its range at start', () => {
    const r = spawnSync(ogai, ['serve', stories, '--port', '0', '--top-p', '1.5'], { encoding: 'utf8', timeout: 20000 });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /top_p/);
  });
});
