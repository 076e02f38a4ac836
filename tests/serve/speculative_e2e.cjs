// `ogai serve --speculative ngram|assistant [--draft-tokens N]`: a speculative server answers
// greedy requests (completions and chat, whole and streamed, several at once so speculative rows
// share the engine) with the same text as a plain server of the same package, for stories260k
// with the n-gram drafter and tiny-e2b-speculative with its assistant; a drafter or a draft width
// the package cannot serve stops the server at startup with the model's error.
//   node speculative_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFile } = require('child_process');
const { promisify } = require('util');
const path = require('path');
const { startServer, stopServer, postJson } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const tiny = path.join(__dirname, '../data/packages/tiny-e2b-speculative');
const MODEL = 'm';  // both servers run with --model-name m
const PROMPTS = ['Once upon a time', 'Lily and Tom went to the park. Lily and Tom', 'The little dog', 'One day'];

async function completion(server, prompt, extra = {}) {
  const r = await postJson(server.url + '/v1/completions',
                           { model: MODEL, prompt, max_tokens: 40, temperature: 0, ...extra });
  assert.equal(r.status, 200, r.text);
  return r.json.choices[0].text;
}

async function streamed(server, prompt) {
  const res = await fetch(server.url + '/v1/completions', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, prompt, max_tokens: 30, temperature: 0, stream: true }),
  });
  assert.equal(res.status, 200);
  let text = '';
  for (const line of (await res.text()).split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    text += JSON.parse(line.slice(6)).choices[0].text;
  }
  return text;
}

async function chat(server, content) {
  const r = await postJson(server.url + '/v1/chat/completions',
                           { model: MODEL, messages: [{ role: 'user', content }], max_tokens: 24, temperature: 0 });
  assert.equal(r.status, 200, r.text);
  return r.json.choices[0].message.content;
}

// Every request at once on both servers: speculative rows and plain ones (the echo with logprobs
// request decodes plainly on the speculative server) share each engine.
async function compare(plain, spec, withChat) {
  const ask = (server) => Promise.all([
    ...PROMPTS.map((p) => completion(server, p)),
    ...PROMPTS.slice(0, 2).map((p) => streamed(server, p)),
    completion(server, PROMPTS[0], { echo: true, logprobs: 1, max_tokens: 5 }),
    ...(withChat ? [chat(server, 'Tell me a story')] : []),
  ]);
  const [a, b] = await Promise.all([ask(plain), ask(spec)]);
  assert.deepEqual(b, a);
  assert.ok(a.some((t) => t.length > 0), 'the servers generated nothing');
}

for (const [name, pkg, args, withChat] of [
  ['stories260k, ngram', stories, ['--speculative', 'ngram', '--draft-tokens', '4'], false],
  ['tiny-e2b-speculative, assistant', tiny, ['--speculative', 'assistant'], false],
]) {
  describe(`speculative ogai serve (${name})`, () => {
    let plain, spec;
    before(async () => {
      [plain, spec] = await Promise.all([startServer(ogai, pkg, ['--max-concurrent', '8', '--model-name', MODEL]),
                                         startServer(ogai, pkg, ['--max-concurrent', '8', '--model-name', MODEL, ...args])]);
    });
    after(async () => {
      for (const s of [plain, spec]) assert.equal((await stopServer(s, 'SIGTERM')).code, 0, s.stderr());
    });
    it('answers greedy requests with the plain server\'s text', async () => { await compare(plain, spec, withChat); });
    it('counts proposed and accepted draft tokens in /metrics (the plain server none)', async () => {
      const counter = async (server, name) => {
        const text = await (await fetch(server.url + '/metrics')).text();
        const line = text.split('\n').find((l) => l.startsWith(name + ' ') || l.startsWith(name + '{'));
        assert.ok(line, `${name} missing from /metrics`);
        return Number(line.split(' ').pop());
      };
      await compare(plain, spec, withChat);
      // And one request alone: in a batch of greedy rows the engine verifies proposals only where
      // they pay for every row, which on a CPU is rare (docs/speculative.md); alone, this prompt's
      // repeated "Lily and Tom" is proposed and verified at once.
      await completion(spec, PROMPTS[1]);
      const drafted = await counter(spec, 'ogai_spec_decode_draft_tokens_total');
      const accepted = await counter(spec, 'ogai_spec_decode_accepted_tokens_total');
      assert.ok(drafted > 0, 'the speculative server proposed no tokens');
      assert.ok(accepted >= 0 && accepted <= drafted, `${accepted} accepted of ${drafted}`);
      assert.equal(await counter(spec, 'vllm:spec_decode_num_draft_tokens_total'), drafted);
      assert.equal(await counter(spec, 'vllm:spec_decode_num_accepted_tokens_total'), accepted);
      assert.equal(await counter(plain, 'ogai_spec_decode_draft_tokens_total'), 0);
    });
  });
}

describe('speculative options the package cannot serve', () => {
  const refused = async (pkg, args, pattern) => {
    await assert.rejects(promisify(execFile)(ogai, ['serve', pkg, '--port', '0', ...args]), (e) => {
      assert.notEqual(e.code, 0);
      assert.match(e.stderr, pattern);
      return true;
    });
  };
  it('refuses the assistant drafter without a proposer', () =>
    refused(stories, ['--speculative', 'assistant'], /speculative/));
  it('refuses a draft width beyond max_proposal_width', () =>
    refused(tiny, ['--speculative', 'assistant', '--draft-tokens', '9'], /max_proposal_width/));
  it('refuses an unknown drafter name', () => refused(stories, ['--speculative', 'medusa'], /speculative/));
});
