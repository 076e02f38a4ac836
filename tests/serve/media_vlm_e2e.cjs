// Images and audio answered, end to end: `ogai serve` on tiny-vlm (tools/fixtures/multimodal_package.py:
// stand-in vision / audio encoders and an embedding graph that COMPUTE) with the clients users call.
// Greedy answers: the same image gives the same reply and another image another one; the same
// conversation through chat image_url, Responses input_image and an Anthropic image block gives one
// reply (one request model, one prompt); two requests with different images in flight together
// each equal their answer alone, asked in either order (batching and the prefix cache never mix
// images); input_audio is answered; /metrics counts the media.
//   node media_vlm_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { png, wav } = require('./media_files.cjs');
const peer = require('../peers/peers.cjs');
const { OpenAI } = peer('openai');
const Anthropic = peer('@anthropic-ai/sdk');
const { startServer, stopServer, http } = require('./server_harness.cjs');

const ogai = process.argv[2];
const vlm = path.join(process.env.OGAI_BINARY_DIR, 'multimodal', 'tiny-vlm');

const QUESTION = 'describe the image';
const dataUrl = (buf) => 'data:image/png;base64,' + buf.toString('base64');

describe('images and audio answered by a multimodal package', () => {
  let server, client, anthropic;
  const chat = async (image) => (await client.chat.completions.create({
    model: 'vlm', max_tokens: 6, temperature: 0,
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl(image) } }, { type: 'text', text: QUESTION }] }],
  })).choices[0].message.content;

  before(async () => {
    server = await startServer(ogai, vlm, ['--model-name', 'vlm']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'x', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); });

  it('the same image the same reply, another image another one (openai chat image_url)', async () => {
    const a1 = await chat(png(1)), b = await chat(png(2)), a2 = await chat(png(1));
    assert.ok(a1.length > 0, 'an empty reply');
    assert.equal(a2, a1, 'the same image answered differently (a prefix-cache entry of another image?)');
    assert.notEqual(b, a1, 'two different images gave one reply: the image did not reach the model');
  });

  it('Responses input_image and an Anthropic image block give the chat reply (one request model)', async () => {
    const expected = await chat(png(3));
    const r = await client.responses.create({
      model: 'vlm', max_output_tokens: 6, temperature: 0,
      input: [{ role: 'user', content: [{ type: 'input_image', image_url: dataUrl(png(3)) }, { type: 'input_text', text: QUESTION }] }],
    });
    assert.equal(r.output_text, expected);
    const m = await anthropic.messages.create({
      model: 'vlm', max_tokens: 6, temperature: 0,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(3).toString('base64') } },
                                           { type: 'text', text: QUESTION }] }],
    });
    assert.equal(m.content.filter((c) => c.type === 'text').map((c) => c.text).join(''), expected);
  });

  it('requests with different images in flight together equal each alone', async () => {
    const seeds = [4, 5, 6, 7];
    const alone = [];
    for (const s of seeds) alone.push(await chat(png(s)));
    const together = await Promise.all(seeds.map((s) => chat(png(s))));
    assert.deepEqual(together, alone);
    const reversed = await Promise.all([...seeds].reverse().map((s) => chat(png(s))));
    assert.deepEqual(reversed.reverse(), alone);
  });

  it('input_audio is answered, and /metrics counts the media by kind', async () => {
    const reply = await client.chat.completions.create({
      model: 'vlm', max_tokens: 4, temperature: 0,
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: wav(0.3, 440).toString('base64'), format: 'wav' } },
                                           { type: 'text', text: 'what is this' }] }],
    });
    assert.equal(reply.choices[0].finish_reason, 'length');
    const metrics = (await http(server.url + '/metrics')).text;
    const count = (kind) => Number((new RegExp(`ogai_media_inputs_total\\{kind="${kind}"\\} (\\d+)`).exec(metrics) || [])[1]);
    assert.ok(count('image') >= 14, metrics);
    assert.ok(count('audio') >= 1, metrics);
  });
});
