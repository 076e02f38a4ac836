// `ogai serve` on packages whose workflow emits media, through the `openai` npm client:
// POST /v1/audio/speech on the speech_wav conformance fixture (the WAV header the reference pins:
// RIFF/WAVE, PCM 16-bit, 24 kHz, 2 channels, a 128-byte data chunk; the same bytes as `ogai run`
// on the assembled prompt's ids; response_format pcm is that data chunk; max_output_units 3 and
// 64 accepted, 0 / 65 / 9999 refused naming the range 1 to 64, as the reference's server test pins) and
// POST /v1/images/generations on an in-range copy of the diffusion fixture (image_package.py: the
// same PNG bytes as `ogai run --output-dir`, whose pixels Pillow checks in image_output_cli_test;
// n images). Bad fields answer 400 naming the field; a package of the other kind 400 naming the
// route and its kind; the unmodified diffusion fixture's out-of-range image 500 naming the output
// and the range. --api-key guards the routes and /metrics counts them.
//   node media_out_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('child_process');
const { promisify } = require('util');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer, http, metric } = require('./server_harness.cjs');

const run = promisify(execFile);
const ogai = process.argv[2];
const fixtures = path.join(process.env.OGAI_SHARED_DIR, 'conformance/metadata/fixtures');
const SPEECH = path.join(fixtures, 'speech_wav');
const DIFFUSION = path.join(fixtures, 'diffusion');
const KEY = 'media-key';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ogai_media_out_'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

// The reference test's noise, (i - 32) / 16 over [1, 4, 4, 4].
const NOISE = [[0, 1, 2, 3].map((c) => [0, 1, 2, 3].map((h) => [0, 1, 2, 3].map((w) => (c * 16 + h * 4 + w - 32) / 16)))];

function wavFacts(buf) {
  assert.equal(buf.toString('latin1', 0, 4), 'RIFF');
  assert.equal(buf.toString('latin1', 8, 16), 'WAVEfmt ');
  return { format: buf.readUInt16LE(20), channels: buf.readUInt16LE(22), rate: buf.readUInt32LE(24),
           bits: buf.readUInt16LE(34), dataTag: buf.toString('latin1', 36, 40), dataBytes: buf.readUInt32LE(40) };
}

async function expectError(promise, status, param, pattern) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.status, status, e.message);
    if (param !== undefined) assert.equal(e.error?.param ?? e.param, param, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

describe('POST /v1/audio/speech on the speech_wav fixture', () => {
  let server;
  let client;
  before(async () => {
    server = await startServer(ogai, SPEECH, ['--model-name', 'speech', '--api-key', KEY]);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: KEY, maxRetries: 0 });
  });
  after(async () => {
    const end = await stopServer(server, 'SIGTERM');
    assert.equal(end.code, 0, end.stderr);
  });

  it('answers the pinned WAV, equal to ogai run on the assembled prompt', async () => {
    const res = await client.audio.speech.create({ model: 'speech', input: 'hello world',
                                                   instructions: 'the quick brown fox', voice: 'default' });
    assert.equal(res.headers.get('content-type'), 'audio/wav');
    const wav = Buffer.from(await res.arrayBuffer());
    assert.deepEqual(wavFacts(wav), { format: 1, channels: 2, rate: 24000, bits: 16, dataTag: 'data', dataBytes: 128 });
    assert.equal(wav.length, 44 + 128);
    // The same prompt through the CLI: the text-assembly's text, tokenized, run, written.
    // instructions + ' ' + input (speech_processor.json's segments; its transforms keep plain text).
    const { stdout } = await run(ogai, ['tokenize', SPEECH, '--text', 'the quick brown fox hello world']);
    const ids = JSON.parse(stdout);
    assert.ok(ids.length > 2, stdout);
    const out = path.join(tmp, 'speech');
    await run(ogai, ['run', SPEECH, '--input', `request.prompt_tokens=${JSON.stringify([ids])}`,
                     '--max-new-tokens', '64', '--output-dir', out]);
    assert.deepEqual(wav, fs.readFileSync(path.join(out, 'audio.wav')));
  });

  it('response_format pcm is the WAV data chunk, as audio/pcm', async () => {
    const body = { model: 'speech', input: 'hello world', instructions: 'the quick brown fox' };
    const wav = Buffer.from(await (await client.audio.speech.create(body)).arrayBuffer());
    const res = await client.audio.speech.create({ ...body, response_format: 'pcm' });
    assert.equal(res.headers.get('content-type'), 'audio/pcm');
    assert.equal(res.headers.get('x-ogai-sample-rate'), '24000');
    assert.equal(res.headers.get('x-ogai-channels'), '2');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), wav.subarray(44));
  });

  it('max_output_units 3 and 64 are accepted, 0, 65 and 9999 refused naming the range', async () => {
    for (const units of [3, 64]) {
      const res = await client.audio.speech.create({ model: 'speech', input: 'hello world', max_output_units: units });
      assert.equal(wavFacts(Buffer.from(await res.arrayBuffer())).rate, 24000);
    }
    for (const units of [0, 65, 9999])
      await expectError(client.audio.speech.create({ model: 'speech', input: 'hello world', max_output_units: units }),
                        400, 'max_output_units', /between 1 and 64/);
  });

  it('refuses fields it cannot honour, naming them', async () => {
    const base = { model: 'speech', input: 'hello world' };
    await expectError(client.audio.speech.create({ ...base, response_format: 'mp3' }), 400, 'response_format', /wav/);
    await expectError(client.audio.speech.create({ ...base, voice: 'alloy' }), 400, 'voice', /alloy/);
    await expectError(client.audio.speech.create({ ...base, speed: 1.5 }), 400, 'speed', /speed/);
    await expectError(client.audio.speech.create({ ...base, input: '' }), 400, 'input');
    // Streamed audio (OpenAI's stream_format sse): refused by name, as the reference refuses streaming a
    // buffered audio workflow (the media contract's delivery: buffered); 'audio' is the whole file.
    await expectError(client.audio.speech.create({ ...base, stream_format: 'sse' }), 400, 'stream_format', /buffered/);
    assert.equal((await client.audio.speech.create({ ...base, stream_format: 'audio' })).status, 200);
    await expectError(client.audio.speech.create({ ...base, model: 'other' }), 404);
  });

  it('an image request names the route and the package kind', async () => {
    await expectError(client.images.generate({ model: 'speech', prompt: 'a cat' }), 400, 'model',
                      /images\/generations.*speech package/);
    await expectError(client.completions.create({ model: 'speech', prompt: [2, 3], max_tokens: 2 }), 400, undefined,
                      /audio\/speech/);
  });

  it('needs the API key, and /metrics counts the route', async () => {
    const bare = await http(server.url + '/v1/audio/speech', { method: 'POST', headers: { 'content-type': 'application/json' },
                                                              body: JSON.stringify({ model: 'speech', input: 'x' }) });
    assert.equal(bare.status, 401);
    const m = await http(server.url + '/metrics');
    assert.ok(metric(m.text, 'ogai_http_requests_total{endpoint="/v1/audio/speech",status="200"}') >= 4, m.text);
    assert.ok(metric(m.text, 'ogai_http_requests_total{endpoint="/v1/audio/speech",status="400"}') >= 6, m.text);
  });
});

describe('POST /v1/images/generations on the diffusion fixture', () => {
  let server;
  let broken;
  let client;
  let brokenClient;
  const pkg = path.join(tmp, 'diffusion_in_range');
  before(async () => {
    await run('/usr/bin/python3', [path.join(__dirname, '..', 'e2e', 'image_package.py'), pkg]);
    server = await startServer(ogai, pkg, ['--model-name', 'img']);
    broken = await startServer(ogai, DIFFUSION, ['--model-name', 'raw']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
    brokenClient = new OpenAI({ baseURL: broken.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    for (const s of [server, broken]) {
      const end = await stopServer(s, 'SIGTERM');
      assert.equal(end.code, 0, end.stderr);
    }
  });

  const body = (extra = {}) => ({ model: 'img', prompt: [1, 2], response_format: 'b64_json', inputs: { noise: NOISE },
                                  ...extra });

  it('answers b64_json PNGs equal to ogai run --output-dir', async () => {
    const res = await client.images.generate(body());
    assert.equal(res.data.length, 1);
    const png = Buffer.from(res.data[0].b64_json, 'base64');
    assert.equal(png.toString('latin1', 1, 4), 'PNG');
    const out = path.join(tmp, 'image');
    await run(ogai, ['run', pkg, '--input', 'request.input_ids=[[1,2]]', '--input', `noise=${JSON.stringify(NOISE)}`,
                     '--output-dir', out]);
    assert.deepEqual(png, fs.readFileSync(path.join(out, 'image.png')));
    assert.ok(Number.isInteger(res.created));
  });

  it('steps fills the max_iterations role: equal to ogai run --max-new-tokens, and bounded', async () => {
    const one = Buffer.from((await client.images.generate(body({ steps: 1 }))).data[0].b64_json, 'base64');
    const thirty = Buffer.from((await client.images.generate(body({ steps: 30 }))).data[0].b64_json, 'base64');
    const plain = Buffer.from((await client.images.generate(body())).data[0].b64_json, 'base64');
    assert.deepEqual(thirty, plain);  // the package's default is 30 trips
    assert.notDeepEqual(one, plain);
    const out = path.join(tmp, 'image_steps');
    await run(ogai, ['run', pkg, '--input', 'request.input_ids=[[1,2]]', '--input', `noise=${JSON.stringify(NOISE)}`,
                     '--max-new-tokens', '1', '--output-dir', out]);
    assert.deepEqual(one, fs.readFileSync(path.join(out, 'image.png')));
    await expectError(client.images.generate(body({ steps: 0 })), 400, 'steps', /1\.\.10000/);
    await expectError(client.images.generate(body({ steps: 10001 })), 400, 'steps', /1\.\.10000/);
    await expectError(client.images.generate(body({ steps: 'many' })), 400, 'steps');
  });

  it('n images', async () => {
    const res = await client.images.generate(body({ n: 3 }));
    assert.equal(res.data.length, 3);
    for (const d of res.data) assert.equal(Buffer.from(d.b64_json, 'base64').toString('latin1', 1, 4), 'PNG');
  });

  it('refuses fields the package cannot honour, naming them', async () => {
    await expectError(client.images.generate(body({ response_format: 'url' })), 400, 'response_format', /b64_json/);
    await expectError(client.images.generate(body({ size: '64x64' })), 400, 'size', /width and height/);
    await expectError(client.images.generate(body({ size: 'big' })), 400, 'size', /WIDTHxHEIGHT/);
    await expectError(client.images.generate(body({ seed: 5 })), 400, 'seed', /seed role/);
    await expectError(client.images.generate(body({ n: 9 })), 400, 'n', /1\.\.8/);
    await expectError(client.images.generate(body({ quality: 'hd' })), 400, 'quality');
    await expectError(client.images.generate(body({ output_format: 'jpeg' })), 400, 'output_format');
    await expectError(client.images.generate(body({ prompt: 'a cat' })), 400, undefined, /tokenizer/);
    await expectError(client.images.generate(body({ inputs: {} })), 400, undefined, /noise/);
    await expectError(client.images.generate(body({ inputs: { noise: '@/etc/passwd' } })), 400, 'inputs.noise');
  });

  it('a speech request names the route and the package kind', async () => {
    await expectError(client.audio.speech.create({ model: 'img', input: 'hi' }), 400, 'model',
                      /audio\/speech.*image package/);
  });

  it('an image outside its value_range is a 500 naming the output and the range', async () => {
    await expectError(brokenClient.images.generate(body({ model: 'raw' })), 500, undefined,
                      /outputs\.image.*negative_one_to_one/);
  });
});
