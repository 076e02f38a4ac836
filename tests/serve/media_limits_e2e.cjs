// The media budgets as `ogai serve` flags (LoadOptions::media_limits; docs/serve.md): on tiny-vlm
// (tools/fixtures/multimodal_package.py), a server started with --max-image-pixels,
// --max-decoded-bytes and --max-audio-seconds below a request's image or clip answers 400 whose
// message names the flag, then answers the next request (a smaller image, a text-only turn) as
// usual; a server with the defaults answers the same image. Through the `openai` npm client.
//   node media_limits_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { png, wav } = require('./media_files.cjs');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer } = require('./server_harness.cjs');

const ogai = process.argv[2];
const vlm = path.join(process.env.OGAI_BINARY_DIR, 'multimodal', 'tiny-vlm');

const dataUrl = (buf) => 'data:image/png;base64,' + buf.toString('base64');

function ask(client, part) {
  return client.chat.completions.create({
    model: 'vlm', max_tokens: 3, temperature: 0,
    messages: [{ role: 'user', content: part ? [part, { type: 'text', text: 'describe' }] : 'describe' }],
  });
}
const image = (buf) => ({ type: 'image_url', image_url: { url: dataUrl(buf) } });
const audio = (buf) => ({ type: 'input_audio', input_audio: { data: buf.toString('base64'), format: 'wav' } });

async function expect400(promise, flag) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.status, 400, e.message);
    assert.ok(e.message.includes(flag), e.message);
    return true;
  });
}

describe('media limit flags on ogai serve', () => {
  let limited, plain, client, plainClient;
  before(async () => {
    // 8x8 = 64 pixels (192 bytes) passes; 16x16 = 256 pixels does not. 0.3 s of audio is 19,200
    // float32 bytes: over --max-decoded-bytes 5000 and --max-audio-seconds 0.2.
    limited = await startServer(ogai, vlm, ['--model-name', 'vlm', '--max-image-pixels', '100', '--max-audio-seconds', '0.2']);
    plain = await startServer(ogai, vlm, ['--model-name', 'vlm']);
    client = new OpenAI({ baseURL: limited.url + '/v1', apiKey: 'x', maxRetries: 0 });
    plainClient = new OpenAI({ baseURL: plain.url + '/v1', apiKey: 'x', maxRetries: 0 });
  });
  after(async () => {
    for (const s of [limited, plain]) {
      const end = await stopServer(s, 'SIGTERM');
      assert.equal(end.code, 0, end.stderr);
    }
  });

  it('--max-image-pixels: 400 naming it, then the server goes on', async () => {
    await expect400(ask(client, image(png(1, 16, 16))), '--max-image-pixels');
    const ok = await ask(client, image(png(1)));
    assert.ok(ok.choices[0].message.content.length > 0);
    const big = await ask(plainClient, image(png(1, 16, 16)));
    assert.ok(big.choices[0].message.content.length > 0);
  });

  it('--max-audio-seconds: 400 naming it, then the server goes on', async () => {
    await expect400(ask(client, audio(wav(0.3, 440))), '--max-audio-seconds');
    assert.equal((await ask(client, audio(wav(0.1, 440)))).choices[0].finish_reason, 'length');
    assert.equal((await ask(plainClient, audio(wav(0.3, 440)))).choices[0].finish_reason, 'length');
    assert.equal((await ask(client)).choices[0].finish_reason, 'length');
  });

  it('--max-decoded-bytes: 400 naming it', async () => {
    const tight = await startServer(ogai, vlm, ['--model-name', 'vlm', '--max-decoded-bytes', '5000']);
    try {
      const c = new OpenAI({ baseURL: tight.url + '/v1', apiKey: 'x', maxRetries: 0 });
      await expect400(ask(c, audio(wav(0.3, 440))), '--max-decoded-bytes');
      await expect400(ask(c, image(png(2, 48, 48))), '--max-decoded-bytes');  // 6,912 bytes decoded
      assert.ok((await ask(c, image(png(2)))).choices[0].message.content.length > 0);
    } finally {
      await stopServer(tight, 'SIGTERM');
    }
  });
});
