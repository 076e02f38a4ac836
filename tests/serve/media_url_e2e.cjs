// http(s) media URLs (`ogai serve --allow-media-urls`, src/serve/common/media_fetch.h) against a
// local HTTP server this test starts (never the internet): an image fetched by URL gets the reply
// the same image gets as a data URL (OpenAI chat image_url, Responses input_image, Anthropic url
// source); the hard limits answer 400 naming why: a slow endpoint (--media-url-timeout), an
// oversized body with and without Content-Length (--max-media-bytes), a redirect loop (3
// redirects), a redirect to file://, an HTTP error status, a non-image Content-Type; the local
// server's own address (loopback) is refused unless --allow-private-media-urls; without
// --allow-media-urls the URL is refused as before (send a data URL).
//   node media_url_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const nodeHttp = require('http');
const path = require('path');
const { png } = require('./media_files.cjs');
const { startServer, stopServer, http } = require('./server_harness.cjs');

const ogai = process.argv[2];
const vlm = path.join(process.env.OGAI_BINARY_DIR, 'multimodal', 'tiny-vlm');
const MAX_BYTES = 4096;

// The local media server: its routes and what each does.
const images = { 1: png(1), 2: png(2) };
const timers = new Set();
function media(req, res) {
  const url = new URL(req.url, 'http://x');
  const send = (status, type, body, headers = {}) => {
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': body.length, ...headers });
    res.end(body);
  };
  switch (url.pathname) {
    case '/image1.png': return send(200, 'image/png', images[1]);
    case '/image2.png': return send(200, 'image/png; charset=binary', images[2]);
    case '/redirect': return send(302, 'text/plain', Buffer.from('moved'), { Location: '/image1.png' });
    case '/loop': return send(302, 'text/plain', Buffer.from('again'), { Location: '/loop' });
    case '/to-file': return send(302, 'text/plain', Buffer.from('file'), { Location: 'file:///etc/passwd' });
    case '/missing': return send(404, 'text/plain', Buffer.from('no'));
    case '/text': return send(200, 'text/html', Buffer.from('<html></html>'));
    case '/big': return send(200, 'image/png', Buffer.alloc(MAX_BYTES + 1, 7));
    case '/big-unsized': {  // no Content-Length: the body grows past the limit
      res.writeHead(200, { 'Content-Type': 'image/png' });
      const block = Buffer.alloc(1024, 7);
      for (let i = 0; i < 8; ++i) res.write(block);
      return res.end();
    }
    case '/slow': {  // headers never come within the timeout
      const t = setTimeout(() => { timers.delete(t); send(200, 'image/png', images[1]); }, 5000);
      timers.add(t);
      return undefined;
    }
    default: return send(404, 'text/plain', Buffer.from('?'));
  }
}

describe('http(s) media URLs', () => {
  let site, base, open, strict, closed;
  before(async () => {
    site = nodeHttp.createServer(media);
    await new Promise((r) => site.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${site.address().port}`;
    const limits = ['--model-name', 'vlm', '--max-media-bytes', String(MAX_BYTES), '--media-url-timeout', '1'];
    open = await startServer(ogai, vlm, [...limits, '--allow-media-urls', '--allow-private-media-urls']);
    strict = await startServer(ogai, vlm, [...limits, '--allow-media-urls']);
    closed = await startServer(ogai, vlm, limits);
  });
  after(async () => {
    for (const s of [open, strict, closed]) if (s) await stopServer(s);
    for (const t of timers) clearTimeout(t);
    site.closeAllConnections();
    await new Promise((r) => site.close(r));
  });

  const chat = (server, url) => http(server.url + '/v1/chat/completions', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'vlm', max_tokens: 6, temperature: 0, messages: [{ role: 'user', content: [
      { type: 'image_url', image_url: { url } }, { type: 'text', text: 'describe the image' }] }] }),
  });
  const dataUrl = (buf) => 'data:image/png;base64,' + buf.toString('base64');
  const reply = (r) => {
    assert.equal(r.status, 200, r.text);
    return r.json.choices[0].message.content;
  };
  const refused = async (server, url, pattern) => {
    const r = await chat(server, url);
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.error.message, pattern);
    assert.equal(r.json.error.param, 'messages[0].content[0].image_url.url');
  };

  it('an image fetched by URL gets the reply of the same image sent inline', async () => {
    const inline1 = reply(await chat(open, dataUrl(images[1]))), inline2 = reply(await chat(open, dataUrl(images[2])));
    assert.notEqual(inline1, inline2, 'the two images should give different replies');
    assert.equal(reply(await chat(open, base + '/image1.png')), inline1);
    assert.equal(reply(await chat(open, base + '/image2.png')), inline2);  // a Content-Type with a parameter
    assert.equal(reply(await chat(open, base + '/redirect')), inline1);    // one redirect is followed
  });

  it('Responses input_image and Anthropic url sources fetch too', async () => {
    const inline = reply(await chat(open, dataUrl(images[2])));
    const responses = await http(open.url + '/v1/responses', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vlm', max_output_tokens: 6, temperature: 0, input: [{ role: 'user', content: [
        { type: 'input_image', image_url: base + '/image2.png' }, { type: 'input_text', text: 'describe the image' }] }] }),
    });
    assert.equal(responses.status, 200, responses.text);
    assert.equal(responses.json.output.find((o) => o.type === 'message').content[0].text, inline);
    const messages = await http(open.url + '/v1/messages', {
      method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'vlm', max_tokens: 6, temperature: 0, messages: [{ role: 'user', content: [
        { type: 'image', source: { type: 'url', url: base + '/image2.png' } }, { type: 'text', text: 'describe the image' }] }] }),
    });
    assert.equal(messages.status, 200, messages.text);
    assert.equal(messages.json.content[0].text, inline);
  });

  it('a slow endpoint ends at --media-url-timeout', async () => {
    const start = Date.now();
    await refused(open, base + '/slow', /not fetched within 1000 ms/);
    assert.ok(Date.now() - start < 4000, `took ${Date.now() - start} ms`);
  });

  it('oversized bodies are refused, with and without Content-Length', async () => {
    await refused(open, base + '/big', /larger than 4096 bytes/);
    await refused(open, base + '/big-unsized', /larger than 4096 bytes/);
  });

  it('redirect loops, redirects off http(s), error statuses and non-image types are refused', async () => {
    await refused(open, base + '/loop', /more than 3 redirects/);
    await refused(open, base + '/to-file', /only http and https/);
    await refused(open, base + '/missing', /HTTP 404/);
    await refused(open, base + '/text', /'text\/html' is not an image type/);
    await refused(open, 'ftp://127.0.0.1/x.png', /expected a data URL/);
  });

  it('private and local addresses need --allow-private-media-urls', async () => {
    await refused(strict, base + '/image1.png', /private or local address 127\.0\.0\.1.*--allow-private-media-urls/);
    await refused(strict, `http://[::1]:${site.address().port}/image1.png`, /private or local address|could not be fetched/);
  });

  it('--allow-private-media-urls alone is refused at start', async () => {
    await assert.rejects(startServer(ogai, vlm, ['--allow-private-media-urls']), /widens --allow-media-urls/);
  });

  it('without --allow-media-urls a URL is refused as before', async () => {
    const r = await chat(closed, base + '/image1.png');
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.error.message, /does not fetch media from URLs.*--allow-media-urls/);
  });
});
