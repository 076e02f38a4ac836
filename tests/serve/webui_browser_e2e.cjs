// The chat page in a real browser: Debian's headless Chromium (over the DevTools protocol,
// chromium_cdp.cjs) opens `ogai serve`'s page on stories260k and drives it as a user would:
//   - sends a message and waits for the streamed reply, which must equal the server's own greedy
//     answer to the same conversation, with token counts and speed shown from its usage;
//   - stops a long reply mid-way (Stop button), then regenerates it, then edits the first message;
//   - reloads: the conversation is still there (localStorage);
//   - on a server with --api-key, the page asks for the key and then chats with it;
//   - on a server of two models (ogai serve A B) a selector lists them with their states; the
//     reply to a message sent after picking the second comes from it (the streamed "model"), and
//     the selector then shows it loaded; with one model there is no selector;
//   - never logs an exception, a console error or a Content-Security-Policy violation;
//   - reasoning, tool calls and code blocks render from a canned stream (answered by the protocol);
//   - a screenshot (saved as webui_browser_e2e.png in the build directory) is checked structurally
//     with Debian's python3-pil: not blank, sidebar and messages visibly laid out.
//   node webui_browser_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('child_process');
const path = require('path');
const { startServer, stopServer, postJson } = require('./server_harness.cjs');
const { Browser } = require('./chromium_cdp.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const tinyE2b = path.join(process.env.OGAI_SOURCE_DIR, 'tests/data/packages/tiny-e2b');
const KEY = 'sk-webui-browser-0123';
const SCREENSHOT = path.join(process.env.OGAI_BINARY_DIR, 'webui_browser_e2e.png');

// Page-side expressions.
const lastAssistant = `[...document.querySelectorAll('.msg.assistant')].pop()`;
const settled = `(() => { const m = ${lastAssistant}; return m && !m.classList.contains('streaming') && m.dataset.finish
                   && !document.getElementById('send').hidden ? m.dataset.finish : ''; })()`;
function typeAndSend(text) {
  return `(() => { const i = document.getElementById('input'); i.value = ${JSON.stringify(text)};
                   document.getElementById('composer').requestSubmit(); return true; })()`;
}
function setSettings(values) {
  return `(() => { document.getElementById('open-settings').click();
    for (const [k, v] of Object.entries(${JSON.stringify(values)})) document.getElementById('set-' + k).value = v;
    document.getElementById('settings-save').click(); return !document.getElementById('settings').open; })()`;
}
const transcript = `[...document.querySelectorAll('.msg')].map((m) => ({ role: m.classList.contains('user') ? 'user' : 'assistant',
  text: m.querySelector('.body').textContent, finish: m.dataset.finish, tokens: m.dataset.completionTokens,
  stats: m.querySelector('.stats').textContent }))`;

// The greedy reply the server gives to `messages` (the page's server runs --temperature 0).
async function serverReply(server, messages, maxTokens) {
  const r = await postJson(`${server.url}/v1/chat/completions`, { model: 'stories260k', messages, max_tokens: maxTokens });
  assert.equal(r.status, 200, r.text);
  return r.json.choices[0].message.content;
}

// Text without its whitespace: the page shows a reply's line breaks as <br>, which textContent drops.
const squash = (s) => s.replace(/\s+/g, '');

describe('the chat page in headless Chromium', () => {
  let server;
  let browser;
  before(async () => {
    server = await startServer(ogai, stories, ['--no-access-log']);
    browser = await Browser.launch({ width: 1200, height: 800 });
    await browser.navigate(server.url + '/');
  });
  after(async () => {
    if (browser) await browser.close();
    if (server) await stopServer(server);
  });

  it('loads offline from the server alone and names the model', async () => {
    await browser.waitFor(`document.getElementById('model-name').textContent === 'stories260k'`, 'the model name');
    assert.equal(await browser.evaluate(`document.getElementById('model-select').hidden`), true);
    assert.equal(await browser.evaluate(`document.getElementById('model-inputs').textContent`), 'text input only');
    assert.equal(await browser.evaluate(`document.getElementById('attach').hidden`), true);
    assert.equal(await browser.evaluate('typeof window.ogaiMarkdown.render'), 'function');
  });

  it('streams a reply equal to the server\'s own, with tokens and speed', async () => {
    await browser.evaluate(setSettings({ max_tokens: '24', temperature: '', top_p: '', system: '', tools: '' }));
    await browser.evaluate(typeAndSend('Once upon a time'));
    await browser.waitFor(`document.getElementById('stop').hidden === false || ${settled}`, 'streaming to start');
    const finish = await browser.waitFor(settled, 'the reply to finish');
    assert.ok(finish === 'length' || finish === 'stop', finish);
    const [user, reply] = await browser.evaluate(transcript);
    assert.equal(user.text, 'Once upon a time');
    const expected = await serverReply(server, [{ role: 'user', content: 'Once upon a time' }], 24);
    assert.ok(expected.length > 0);
    assert.equal(squash(reply.text), squash(expected));
    assert.ok(Number(reply.tokens) > 0 && Number(reply.tokens) <= 24, reply.tokens);
    assert.match(reply.stats, new RegExp(`^\\d+ prompt \\+ ${reply.tokens} tokens · [\\d.]+ tokens/s · [\\d.]+ s to first token`));
    assert.equal(await browser.evaluate(`document.querySelectorAll('#conversations li').length`), 1);
    assert.equal(await browser.evaluate(`document.querySelector('#conversations li .title').textContent`), 'Once upon a time');
  });

  it('stops a long reply mid-way, then regenerates it', async () => {
    await browser.evaluate(setSettings({ max_tokens: '480' }));
    await browser.evaluate(typeAndSend('Once upon a time there was a dog'));
    // Clicked from inside the page as soon as the first text shows, so the stop lands mid-reply.
    const outcome = await browser.evaluate(`new Promise((resolve) => {
      const start = performance.now();
      const tick = () => {
        const m = ${lastAssistant};
        if (m && m.classList.contains('streaming') && m.querySelector('.body').textContent.length > 0) {
          document.getElementById('stop').click();
          resolve('clicked');
        } else if (m && !m.classList.contains('streaming') && m.dataset.finish) resolve('ended first: ' + m.dataset.finish);
        else if (performance.now() - start > 15000) resolve('timed out');
        else setTimeout(tick, 0);
      };
      tick();
    })`);
    assert.equal(outcome, 'clicked');
    assert.equal(await browser.waitFor(settled, 'the stopped reply to settle'), 'stopped');
    let messages = await browser.evaluate(transcript);
    assert.equal(messages.length, 4);
    const stopped = messages[3];
    assert.ok(stopped.text.length > 0, 'the text streamed before the stop stays');
    assert.match(stopped.stats, /stopped$/);
    const stored = await browser.evaluate(`JSON.parse(localStorage.getItem('ogai.conversations'))[0].messages`);
    const history = stored.slice(0, 3).map((m) => ({ role: m.role, content: m.content }));
    assert.equal(history[2].content, 'Once upon a time there was a dog');
    const full = await serverReply(server, history, 480);
    assert.ok(squash(full).startsWith(squash(stopped.text)), 'the stopped text is a prefix of the whole reply');
    assert.ok(squash(stopped.text).length < squash(full).length, `the stop came mid-way: ${stopped.text.length} of ${full.length}`);

    await browser.evaluate(`${lastAssistant}.querySelector('button.regenerate').click()`);
    const finish = await browser.waitFor(settled, 'the regenerated reply');
    assert.notEqual(finish, 'stopped');
    messages = await browser.evaluate(transcript);
    assert.equal(messages.length, 4, 'regenerate replaces the reply');
    assert.equal(squash(messages[3].text), squash(full));
    assert.ok(Number(messages[3].tokens) > 0);
  });

  it('edits the first message: the conversation restarts from it', async () => {
    await browser.evaluate(setSettings({ max_tokens: '16' }));
    await browser.evaluate(`document.querySelector('.msg.user button.edit').click()`);
    await browser.evaluate(`(() => { const box = document.querySelector('.msg.user .edit-box textarea');
                             box.value = 'Lily saw a cat'; document.querySelector('.save-edit').click(); return true; })()`);
    await browser.waitFor(settled, 'the reply to the edited message');
    const messages = await browser.evaluate(transcript);
    assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant']);
    assert.equal(messages[0].text, 'Lily saw a cat');
    assert.equal(await browser.evaluate(`document.querySelector('#conversations li .title').textContent`), 'Lily saw a cat');
    assert.equal(squash(messages[1].text), squash(await serverReply(server, [{ role: 'user', content: 'Lily saw a cat' }], 16)));
  });

  it('keeps the conversation across a reload and renders markdown safely', async () => {
    await browser.navigate(server.url + '/');
    await browser.waitFor(`document.querySelectorAll('.msg').length === 2`, 'the stored conversation');
    assert.equal(await browser.evaluate(`document.querySelector('.msg.user .body').textContent`), 'Lily saw a cat');
    const html = await browser.evaluate(`(() => { const d = document.createElement('div');
      d.innerHTML = ogaiMarkdown.render('**b** <img src=x onerror="window.pwned=1">\\n\\n\`\`\`js\\nx<y\\n\`\`\`');
      document.body.append(d); return d.innerHTML; })()`);
    assert.match(html, /<strong>b<\/strong> &lt;img/);
    assert.match(html, /<code class="language-js">x&lt;y<\/code>/);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await browser.evaluate('window.pwned === undefined'), true);
  });

  it('shows a page that is not blank (screenshot checked with python3-pil)', async () => {
    await browser.screenshot(SCREENSHOT);
    const report = JSON.parse(execFileSync('/usr/bin/python3', ['-c', `
import json, sys
from PIL import Image
img = Image.open(sys.argv[1]).convert('RGB')
w, h = img.size
px = img.load()
def fraction(x0, x1, y0, y1, pred):
    n = hit = 0
    for y in range(y0, y1, 2):
        for x in range(x0, x1, 2):
            n += 1
            hit += pred(px[x, y])
    return hit / n
colors = img.getcolors(w * h)
background = max(colors)[1]
differs = lambda p: sum(abs(a - b) for a, b in zip(p, background)) > 24
def mean(x0, x1, y0, y1):
    region = img.crop((x0, y0, x1, y1)).resize((1, 1), Image.BOX)
    return list(region.getpixel((0, 0)))
print(json.dumps({'size': [w, h], 'ink': fraction(0, w, 0, h, differs), 'colors': len(colors),
                  'messages_ink': fraction(300, w, 60, h - 100, differs),
                  'sidebar': mean(0, 240, 100, 700), 'main': mean(400, 1100, 700, 780)}))
`, SCREENSHOT], { encoding: 'utf8' }));
    assert.deepEqual(report.size, [1200, 800]);
    assert.ok(report.ink > 0.03 && report.ink < 0.6, `non-background pixels: ${report.ink}`);
    assert.ok(report.messages_ink > 0.01, `the messages area shows text: ${report.messages_ink}`);
    assert.ok(report.colors > 50, `anti-aliased text and widgets: ${report.colors} colours`);
    const diff = report.sidebar.reduce((s, v, i) => s + Math.abs(v - report.main[i]), 0);
    assert.ok(diff > 6, `the sidebar is a panel of its own: ${report.sidebar} vs ${report.main}`);
  });

  it('shows reasoning, tool calls and code from a canned stream (a model stories260k is not)', async () => {
    // The browser's own request is answered by the DevTools protocol (Fetch domain) with events
    // shaped as the server streams them for a reasoning model that calls a tool.
    const events = [
      { choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] },
      { choices: [{ index: 0, delta: { reasoning_content: 'The user wants ' } }] },
      { choices: [{ index: 0, delta: { reasoning_content: 'the weather.' } }] },
      { choices: [{ index: 0, delta: { content: 'Checking:\n\n```json\n{"a": "<b>"}\n```' } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function',
                                                      function: { name: 'get_weather', arguments: '{"city":' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ' "Paris"}' } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      { choices: [], usage: { prompt_tokens: 9, completion_tokens: 21, total_tokens: 30 } },
    ];
    const sse = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
    await browser.page('Fetch.enable', { patterns: [{ urlPattern: '*/v1/chat/completions', requestStage: 'Request' }] });
    try {
      await browser.evaluate(`document.getElementById('new-chat').click()`);
      const paused = browser.once('Fetch.requestPaused');
      await browser.evaluate(typeAndSend('Weather in Paris?'));
      const { requestId, request } = await paused;
      assert.equal(JSON.parse(request.postData).stream_options.include_usage, true);
      await browser.page('Fetch.fulfillRequest', { requestId, responseCode: 200, body: Buffer.from(sse).toString('base64'),
                                                   responseHeaders: [{ name: 'Content-Type', value: 'text/event-stream' }] });
      assert.equal(await browser.waitFor(settled, 'the canned reply'), 'tool_calls');
    } finally {
      await browser.page('Fetch.disable');
    }
    const view = await browser.evaluate(`(() => { const m = ${lastAssistant};
      return { reasoningHidden: m.querySelector('.reasoning').hidden, reasoningOpen: m.querySelector('.reasoning').open,
               reasoning: m.querySelector('.reasoning-text').textContent,
               tool: m.querySelector('.tool-call summary').textContent, args: m.querySelector('.tool-call code').textContent,
               code: m.querySelector('.body pre code').outerHTML, stats: m.querySelector('.stats').textContent,
               conversations: document.querySelectorAll('#conversations li').length }; })()`);
    assert.equal(view.reasoningHidden, false);
    assert.equal(view.reasoningOpen, false, 'reasoning is collapsed once the reply is done');
    assert.equal(view.reasoning, 'The user wants the weather.');
    assert.equal(view.tool, 'Tool call: get_weather');
    assert.equal(view.args, '{\n  "city": "Paris"\n}');
    assert.equal(view.code, '<code class="language-json">{"a": "&lt;b&gt;"}</code>');
    assert.match(view.stats, /^9 prompt \+ 21 tokens · .* · tool calls$/);
    assert.equal(view.conversations, 2);
  });

  it('logged no exception, console error or policy violation', () => {
    assert.deepEqual(browser.problems, []);
  });
});

describe('the chat page with --api-key', () => {
  let server;
  let browser;
  before(async () => {
    server = await startServer(ogai, stories, ['--no-access-log', '--api-key', KEY]);
    browser = await Browser.launch({ width: 900, height: 700 });
    await browser.navigate(server.url + '/');
  });
  after(async () => {
    if (browser) await browser.close();
    if (server) await stopServer(server);
  });

  it('asks for the key, then chats with it', async () => {
    await browser.waitFor(`document.getElementById('key-dialog').open`, 'the key dialog');
    await browser.evaluate(`(() => { document.getElementById('key-input').value = 'wrong-key';
                             document.getElementById('key-save').click(); return true; })()`);
    await browser.waitFor(`document.getElementById('key-dialog').open && !document.getElementById('key-error').hidden`,
                          'the refusal of a wrong key');
    await browser.evaluate(`(() => { document.getElementById('key-input').value = ${JSON.stringify(KEY)};
                             document.getElementById('key-save').click(); return true; })()`);
    await browser.waitFor(`document.getElementById('model-name').textContent === 'stories260k'`, 'the model, with the key');
    await browser.evaluate(setSettings({ max_tokens: '8' }));
    await browser.evaluate(typeAndSend('Once upon a time'));
    assert.notEqual(await browser.waitFor(settled, 'the reply'), 'error');
    const [, reply] = await browser.evaluate(transcript);
    assert.ok(reply.text.length > 0);
    assert.ok(Number(reply.tokens) > 0);
    // The 401s of the first tries are the network's console errors; nothing else may be logged.
    assert.deepEqual(browser.problems.filter((p) => !/status of 401/.test(p)), []);
  });
});

describe('the chat page on a server of two models', () => {
  let server;
  let browser;
  before(async () => {
    server = await startServer(ogai, stories, [tinyE2b, '--no-access-log']);
    browser = await Browser.launch({ width: 1000, height: 700 });
    await browser.navigate(server.url + '/');
  });
  after(async () => {
    if (browser) await browser.close();
    if (server) await stopServer(server);
  });

  const options = `[...document.getElementById('model-select').options].map((o) => o.textContent).join('|')`;

  it('lists the models with their states and answers from the one picked', async () => {
    await browser.waitFor(`!document.getElementById('model-select').hidden`, 'the model selector');
    assert.equal(await browser.evaluate(options), 'stories260k (not loaded)|tiny-e2b (not loaded)');
    assert.equal(await browser.evaluate(`document.getElementById('model-name').hidden`), true);
    await browser.evaluate(`(() => { const s = document.getElementById('model-select'); s.value = 'tiny-e2b';
                             s.dispatchEvent(new Event('change')); return true; })()`);
    await browser.evaluate(setSettings({ max_tokens: '8', temperature: '', top_p: '', system: '', tools: '' }));
    await browser.evaluate(typeAndSend('hello'));
    assert.notEqual(await browser.waitFor(settled, 'the reply'), 'error');
    assert.equal(await browser.evaluate(`${lastAssistant}.dataset.model`), 'tiny-e2b');
    await browser.waitFor(`${options} === 'stories260k (not loaded)|tiny-e2b'`, 'the selector to show tiny-e2b loaded');
    assert.equal(await browser.evaluate(`document.getElementById('model-select').value`), 'tiny-e2b');
    assert.deepEqual(browser.problems, []);
  });
});
