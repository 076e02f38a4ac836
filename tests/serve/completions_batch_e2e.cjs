// POST /v1/completions with several prompts, best_of and suffix (issue 26 item 5), through the
// real `openai` client against `ogai serve` (greedy unless a request gives a temperature):
// - an array of strings / of token-id arrays: each prompt's choices equal that prompt asked alone,
//   index = prompt_index * n + choice, usage summed; token arrays equal their string forms;
// - streamed, each index's chunks join to the whole answer's text;
// - best_of: the answered candidate is the seeded candidate (seed + i) with the highest mean
//   logprob of its sampled tokens; best_of < n, best_of with stream: 400 naming best_of;
// - suffix: 400 naming it (null or "" accepted); too many prompts x n for the server: 400 naming prompt.
//   node completions_batch_e2e.cjs OGAI_EXE   (through tests/peers/run_node.sh)
'use strict';
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { OpenAI } = require('../peers/peers.cjs')('openai');
const { startServer, stopServer, http, postJson, metric } = require('./server_harness.cjs');

const ogai = process.argv[2];
const stories = path.join(process.env.OGAI_BINARY_DIR, 'packages/stories260k');
const model = 'stories260k';
const prompts = ['Once upon a time', 'Lily saw a big', 'Tom and his dog'];

function mean(lp) {
  const t = lp.token_logprobs;
  return t.reduce((a, b) => a + b, 0) / t.length;
}

describe('completions: several prompts, best_of, suffix', () => {
  let server, client;
  before(async () => {
    server = await startServer(ogai, stories, ['--max-concurrent', '8', '--queue', '8']);
    client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => { await stopServer(server); });

  async function alone(prompt, extra = {}) {
    return client.completions.create({ model, prompt, max_tokens: 24, ...extra });
  }

  it('an array of strings answers each prompt as asked alone, index = prompt * n + choice, usage summed', async () => {
    const n = 2;
    const r = await client.completions.create({ model, prompt: prompts, max_tokens: 24, n });
    assert.equal(r.choices.length, prompts.length * n);
    let promptTokens = 0, completionTokens = 0;
    for (let p = 0; p < prompts.length; ++p) {
      const one = await alone(prompts[p], { n });
      promptTokens += one.usage.prompt_tokens;
      completionTokens += one.usage.completion_tokens;
      for (let c = 0; c < n; ++c) {
        const got = r.choices.find((x) => x.index === p * n + c);
        assert.ok(got, `index ${p * n + c}`);
        assert.equal(got.text, one.choices[c].text);
        assert.equal(got.finish_reason, one.choices[c].finish_reason);
      }
    }
    assert.deepEqual([...r.choices.map((c) => c.index)].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5]);
    assert.equal(r.usage.prompt_tokens, promptTokens);
    assert.equal(r.usage.completion_tokens, completionTokens);
    assert.equal(r.usage.total_tokens, promptTokens + completionTokens);
  });

  it('sampled with a seed, prompt p choice c equals prompt p asked alone (choice c uses seed + c)', async () => {
    const n = 3, sampling = { max_tokens: 16, temperature: 1, seed: 77, n };
    const r = await client.completions.create({ model, prompt: prompts, ...sampling });
    assert.equal(r.choices.length, prompts.length * n);
    for (let p = 0; p < prompts.length; ++p) {
      const one = await alone(prompts[p], sampling);
      assert.ok(new Set(one.choices.map((c) => c.text)).size > 1, 'seeded choices should differ');
      for (let c = 0; c < n; ++c) assert.equal(r.choices[p * n + c].text, one.choices[c].text, `prompt ${p} choice ${c}`);
      assert.deepEqual(r.choices.slice(p * n, p * n + n).map((x) => x.index), [p * n, p * n + 1, p * n + 2]);
    }
  });

  it('echo with several prompts echoes each its own prompt', async () => {
    const r = await client.completions.create({ model, prompt: prompts, max_tokens: 6, echo: true });
    for (let p = 0; p < prompts.length; ++p) {
      const one = await alone(prompts[p], { max_tokens: 6 });
      assert.equal(r.choices[p].text, prompts[p] + one.choices[0].text);
    }
  });

  it('token-id array prompts equal their string forms', async () => {
    const ids = [];
    for (const p of prompts) {
      const t = await postJson(server.url + '/tokenize', { content: p, add_special: true });
      assert.equal(t.status, 200, t.text);
      ids.push(t.json.tokens);
    }
    const byIds = await client.completions.create({ model, prompt: ids, max_tokens: 24 });
    const byText = await client.completions.create({ model, prompt: prompts, max_tokens: 24 });
    assert.equal(byIds.choices.length, prompts.length);
    for (let p = 0; p < prompts.length; ++p) {
      assert.equal(byIds.choices[p].index, p);
      assert.equal(byIds.choices[p].text, byText.choices[p].text);
    }
    assert.equal(byIds.usage.prompt_tokens, byText.usage.prompt_tokens);
  });

  it('streamed, each index joins to the whole answer, and the usage is summed', async () => {
    const n = 2, sampling = { max_tokens: 24, n, temperature: 1, seed: 5 };
    const whole = await client.completions.create({ model, prompt: prompts, ...sampling });
    const stream = await client.completions.create({
      model, prompt: prompts, ...sampling, stream: true, stream_options: { include_usage: true } });
    const texts = new Map();
    let usage = null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      for (const c of chunk.choices) texts.set(c.index, (texts.get(c.index) || '') + c.text);
    }
    assert.equal(texts.size, prompts.length * n);
    for (const c of whole.choices) assert.equal(texts.get(c.index), c.text, `index ${c.index}`);
    assert.deepEqual(usage, whole.usage);
  });

  it('best_of answers the seeded candidate with the highest mean logprob', async () => {
    // A seed whose best candidate is not candidate 0, so that answering candidate 0 would fail.
    const bestOf = 4;
    let sampling, cands, means, texts, best = 0;
    for (let seed = 1234; seed < 1264 && best === 0; ++seed) {
      sampling = { max_tokens: 16, temperature: 1, seed };
      cands = await client.completions.create({ model, prompt: prompts[0], n: bestOf, logprobs: 1, ...sampling });
      means = cands.choices.map((c) => mean(c.logprobs));
      texts = cands.choices.map((c) => c.text);
      best = means.indexOf(Math.max(...means));
    }
    assert.notEqual(best, 0, 'no seed tried had a best candidate other than 0');
    assert.ok(new Set(texts).size > 1, 'the seeded candidates should differ');
    const r = await client.completions.create({ model, prompt: prompts[0], best_of: bestOf, ...sampling });
    assert.equal(r.choices.length, 1);
    assert.equal(r.choices[0].index, 0);
    assert.equal(r.choices[0].text, texts[best]);
    assert.equal(r.choices[0].logprobs, null);  // not asked
    const total = cands.choices.reduce((a, c) => a + c.logprobs.tokens.length, 0);
    assert.equal(r.usage.completion_tokens, total);  // every candidate is counted
    // n = 2 of best_of 4: the two best, best first; with two prompts, indexes 0..3.
    const order = means.map((m, i) => [m, i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).map((x) => x[1]);
    const two = await client.completions.create({ model, prompt: [prompts[0], prompts[1]], n: 2, best_of: bestOf,
                                                  logprobs: 1, ...sampling });
    assert.equal(two.choices.length, 4);
    assert.equal(two.choices[0].text, texts[order[0]]);
    assert.equal(two.choices[1].text, texts[order[1]]);
    assert.ok(mean(two.choices[0].logprobs) >= mean(two.choices[1].logprobs));
    assert.deepEqual(two.choices.map((c) => c.index), [0, 1, 2, 3]);
  });

  it('refuses best_of below n or with stream, and suffix, naming the field', async () => {
    const cases = [
      [{ prompt: 'Hi', n: 3, best_of: 2 }, 'best_of'],
      [{ prompt: 'Hi', best_of: 2, stream: true }, 'best_of'],
      [{ prompt: 'Hi', best_of: 0 }, 'best_of'],
      [{ prompt: 'Hi', suffix: ' the end.' }, 'suffix'],
      [{ prompt: Array(2049).fill('a') }, 'prompt'],
      [{ prompt: ['a', 7] }, 'prompt'],
      [{ prompt: ['a', []] }, 'prompt'],
      [{ prompt: prompts, n: 8 }, 'prompt'],  // 24 generations > 8 running + 8 queued
      [{ prompt: prompts, n: 9 }, 'n'],       // > --max-concurrent 8
      [{ prompt: 'Hi', best_of: 9 }, 'best_of'],
      [{ prompt: prompts, temperature: -1 }, 'temperature'],  // the engine's refusal, whole ...
      [{ prompt: prompts, temperature: -1, stream: true }, 'temperature'],  // ... and streamed
    ];
    for (const [body, param] of cases) {
      await assert.rejects(client.completions.create({ model, max_tokens: 4, ...body }), (e) => {
        assert.equal(e.status, 400, JSON.stringify(body));
        assert.equal(e.param, param, JSON.stringify(body));
        return true;
      });
    }
    const fim = await postJson(server.url + '/v1/completions', { model, prompt: 'Hi', suffix: 'x', max_tokens: 4 });
    assert.match(fim.json.error.message, /fill-in-the-middle is not supported by this model/);
    for (const suffix of [null, '']) {
      const ok = await client.completions.create({ model, prompt: 'Hi', suffix, max_tokens: 4 });
      assert.equal(ok.choices.length, 1);
    }
  });

  it('a prompt that finds no room ends the admitted ones: 429, then the same request is served', async () => {
    // --max-concurrent 1 --queue 1: a long stream runs; of two prompts the first queues, the second
    // is refused, and the first must leave the queue with it.
    const small = await startServer(ogai, stories, ['--max-concurrent', '1', '--queue', '1']);
    try {
      const c = new OpenAI({ baseURL: small.url + '/v1', apiKey: 'unused', maxRetries: 0 });
      const occupant = await c.completions.create({ model, prompt: 'Once upon a time', max_tokens: 480, ignore_eos: true,
                                                   stream: true });
      const it = occupant[Symbol.asyncIterator]();
      await it.next();  // the occupant runs
      const cancelled = async () => metric((await http(small.url + '/metrics')).text,
                                           'ogai_generations_total{finish_reason="cancelled"}');
      const before = await cancelled();
      const two = { model, prompt: [prompts[0], prompts[1]], max_tokens: 8 };
      await assert.rejects(c.completions.create(two), (e) => {
        assert.equal(e.status, 429);
        return true;
      });
      let finished = false;
      for (let i = 0; i < 200 && !finished; ++i) {  // the queued first prompt is cancelled, not run
        finished = (await cancelled()) === before + 1;
        if (!finished) await new Promise((r) => setTimeout(r, 10));
      }
      assert.ok(finished, 'the admitted prompt was not cancelled');
      while (!(await it.next()).done);
      const busy = async () => {
        const text = (await http(small.url + '/metrics')).text;
        return metric(text, 'ogai_requests_in_flight') + metric(text, 'ogai_queue_depth');
      };
      for (let i = 0; i < 200 && (await busy()) > 0; ++i) await new Promise((r) => setTimeout(r, 10));
      const again = await c.completions.create(two);
      assert.equal(again.choices.length, 2);
      const alone0 = await c.completions.create({ model, prompt: prompts[0], max_tokens: 8 });
      assert.equal(again.choices[0].text, alone0.choices[0].text);
    } finally {
      await stopServer(small);
    }
  });
});
