// Images and audio in, through `ogai serve` on tiny-e2b (a text-only package) with the clients
// users call: the `openai` npm client (chat image_url and input_audio parts, Responses
// input_image, audio.transcriptions / translations multipart uploads) and `@anthropic-ai/sdk`
// (an image block). The request model reads every part (common/conversation.h); the text-only
// package refuses them, and the answer is a 400 naming the part where the client wrote it (never
// a 500). Hostile media (malformed base64, a 1,000-image request, a wrong MIME type, a data URL
// over --max-media-bytes, http URLs, broken multipart bodies) get a 4xx while the server keeps
// answering; /metrics counts the media the server read, by kind.
//   node media_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const peer = require('../peers/peers.cjs');
const { OpenAI, toFile } = peer('openai');
const Anthropic = peer('@anthropic-ai/sdk');
const { startServer, stopServer, http, postJson, metric } = require('./server_harness.cjs');

const ogai = process.argv[2];
const tinyE2b = path.join(process.env.OGAI_SOURCE_DIR, 'tests/data/packages/tiny-e2b');
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const pngUrl = 'data:image/png;base64,' + png.toString('base64');

// A 16 kHz mono 16-bit WAV of `samples` zero samples.
function wav(samples) {
  const b = Buffer.alloc(44 + samples * 2);
  b.write('RIFF', 0); b.writeUInt32LE(36 + samples * 2, 4); b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22); b.writeUInt32LE(16000, 24);
  b.writeUInt32LE(32000, 28); b.writeUInt16LE(2, 32); b.writeUInt16LE(16, 34); b.write('data', 36);
  b.writeUInt32LE(samples * 2, 40);
  return b;
}

async function refusal(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('the request was accepted');
}

describe('media parts on every API surface of a text-only package', () => {
  let server, client, anthropic;
  before(async () => {
    server = await startServer(ogai, tinyE2b, ['--model-name', 'e', '--max-media-bytes', '1000000']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'x', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); });

  it('chat image_url: 400 naming the part (openai client)', async () => {
    const e = await refusal(client.chat.completions.create({
      model: 'e', max_tokens: 4,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url: pngUrl } }] }],
    }));
    assert.equal(e.status, 400, e.message);
    assert.equal(e.error.param, 'messages[0].content[1]');
    assert.match(e.error.message, /takes no image input/);
  });

  it('chat input_audio: 400 naming the part', async () => {
    const e = await refusal(client.chat.completions.create({
      model: 'e', max_tokens: 4,
      messages: [{ role: 'system', content: 'Hi' },
                 { role: 'user', content: [{ type: 'input_audio', input_audio: { data: wav(160).toString('base64'), format: 'wav' } }] }],
    }));
    assert.equal(e.status, 400, e.message);
    assert.equal(e.error.param, 'messages[1].content[0]');
    assert.match(e.error.message, /takes no audio input/);
  });

  it('Responses input_image: 400 naming the input item', async () => {
    const e = await refusal(client.responses.create({
      model: 'e', max_output_tokens: 4,
      input: [{ role: 'user', content: [{ type: 'input_image', image_url: pngUrl }, { type: 'input_text', text: 'x' }] }],
    }));
    assert.equal(e.status, 400, e.message);
    assert.equal(e.error.param, 'input[0].content[0]');
  });

  it('Anthropic image block: 400 in Anthropic\'s shape (@anthropic-ai/sdk)', async () => {
    const e = await refusal(anthropic.messages.create({
      model: 'e', max_tokens: 4,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } },
                                           { type: 'text', text: 'What is it?' }] }],
    }));
    assert.equal(e.status, 400, e.message);
    assert.equal(e.error.type, 'error');
    assert.match(e.error.error.message, /^messages\[0\]\.content\[0\]: .*takes no image input/);
  });

  it('audio.transcriptions and translations (multipart): 400 naming file', async () => {
    for (const create of [(f) => client.audio.transcriptions.create({ file: f, model: 'e', response_format: 'verbose_json', language: 'en' }),
                          (f) => client.audio.translations.create({ file: f, model: 'e', response_format: 'srt' })]) {
      const e = await refusal(create(await toFile(wav(16000), 'clip.wav', { type: 'audio/wav' })));
      assert.equal(e.status, 400, e.message);
      assert.equal(e.error.param, 'file');
      assert.match(e.error.message, /takes no audio input/);
    }
    const missing = await refusal(client.audio.transcriptions.create({ file: await toFile(wav(10), 'a.wav'), model: 'nope' }));
    assert.equal(missing.status, 404);
    const format = await refusal(client.audio.transcriptions.create({ file: await toFile(wav(10), 'a.wav'), model: 'e', response_format: 'xml' }));
    assert.equal(format.error.param, 'response_format');
  });

  it('hostile media get a 4xx and the server keeps serving', async () => {
    const chat = (content) => postJson(server.url + '/v1/chat/completions',
                                       { model: 'e', max_tokens: 2, messages: [{ role: 'user', content }] });
    const image = (url) => ({ type: 'image_url', image_url: { url } });
    const cases = [
      [[image('data:image/png;base64,@@@@')], /not valid base64/],
      [[image('data:application/x-msdownload;base64,TVqQAAMAAAAEAAAA')], /not an image type/],
      [[image('https://example.com/cat.png')], /does not fetch/],
      [Array.from({ length: 1000 }, () => image(pngUrl)), /--max-media-parts/],
      [[image('data:image/png;base64,' + 'A'.repeat(1_400_000))], /--max-media-bytes/],
    ];
    for (const [content, message] of cases) {
      const res = await chat(content);
      assert.equal(res.status, 400, res.text.slice(0, 200));
      assert.match(res.json.error.message, message);
    }
    const multipart = [
      ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="model"\r\n\r\ne\r\n'],  // no close
      ['multipart/form-data', '--b--'],
      ['application/json', '{"model":"e"}'],
      ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="model"\r\n\r\ne\r\n--b--\r\n'],  // no file
    ];
    for (const [type, body] of multipart) {
      const res = await http(server.url + '/v1/audio/transcriptions', { method: 'POST', headers: { 'content-type': type }, body });
      assert.equal(res.status, 400, res.text);
    }
    assert.equal((await http(server.url + '/health')).status, 200);
    const ok = await client.chat.completions.create({ model: 'e', max_tokens: 3, messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] });
    assert.equal(ok.choices.length, 1);
  });

  it('/metrics counts the media read, by kind', async () => {
    const before = (await http(server.url + '/metrics')).text;
    await refusal(client.chat.completions.create({
      model: 'e', max_tokens: 2,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: pngUrl } }, { type: 'image_url', image_url: { url: pngUrl } }] }],
    }));
    const after = (await http(server.url + '/metrics')).text;
    assert.equal(metric(after, 'ogai_media_inputs_total{kind="image"}') - metric(before, 'ogai_media_inputs_total{kind="image"}'), 2);
    assert.equal(metric(after, 'ogai_media_inputs_total{kind="audio"}'), metric(before, 'ogai_media_inputs_total{kind="audio"}'));
  });
});
