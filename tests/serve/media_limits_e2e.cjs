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
const zlib = require('zlib');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer } = require('./server_harness.cjs');

const ogai = process.argv[2];
const vlm = path.join(process.env.OGAI_BINARY_DIR, 'multimodal', 'tiny-vlm');

const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
// A w x h RGB PNG whose pixels depend on `seed`.
function png(seed, w = 8, h = 8) {
  const rows = [];
  for (let y = 0; y < h; ++y) {
    const row = [0];
    for (let x = 0; x < w; ++x) row.push((x * 37 + seed * 91) % 256, (y * 53 + seed * 17) % 256, (x * y + seed * 7) % 256);
    rows.push(Buffer.from(row));
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr),
                        chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}
// A 16 kHz mono 16-bit WAV: `seconds` of a sine at `hz`.
function wav(seconds, hz) {
  const n = Math.round(seconds * 16000), b = Buffer.alloc(44 + n * 2);
  b.write('RIFF', 0); b.writeUInt32LE(36 + n * 2, 4); b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22); b.writeUInt32LE(16000, 24);
  b.writeUInt32LE(32000, 28); b.writeUInt16LE(2, 32); b.writeUInt16LE(16, 34); b.write('data', 36); b.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; ++i) b.writeInt16LE(Math.round(12000 * Math.sin(2 * Math.PI * hz * i / 16000)), 44 + 2 * i);
  return b;
}

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
