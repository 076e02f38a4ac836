// What one `ogai serve` replica offers a gateway (issue 16 part 1, issue 15 part 4), over loopback:
//   - /health and /ready, the x-ogai-replica header on every answer, the replica id in logs;
//   - the metrics inference-aware routers read move as docs/deploy.md says: with more requests than
//     --max-concurrent, vllm:num_requests_running stays at it and vllm:num_requests_waiting holds
//     the rest; vllm:kv_cache_usage_perc rises as the running requests' tokens grow; a fresh server
//     reports empty histograms and NaN summary quantiles, never a p99 of 0;
//   - SIGTERM drains: /ready turns 503 while /health stays 200, a new generation is refused with
//     503 before any work, the admitted ones (running and waiting) finish whole, and it exits 0.
//   node replica_e2e.cjs OGAI_EXE
'use strict';
const assert = require('node:assert/strict');
const { describe, it } = require('node:test');
const path = require('path');
const { startServer, stopServer, http, postJson, metric } = require('../serve/server_harness.cjs');

const ogai = process.argv[2];
const source = path.join(__dirname, '../..');
const stories = path.join(process.env.OGAI_BINARY_DIR || path.join(source, 'build'), 'packages/stories260k');
const model = 'stories260k';
const label = `{model_name="${model}"}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, check, ms = 30000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const long = (max_tokens) => ({ model, prompt: 'Once upon a time', max_tokens, ignore_eos: true, temperature: 0 });

describe('one replica as a gateway sees it', { timeout: 120000 }, () => {
  it('answers /health, /ready and metrics, names itself, and its gauges move with the load', async (t) => {
    const server = await startServer(ogai, stories, ['--max-concurrent', '2', '--queue', '16', '--replica-id', 'edge-7']);
    try {
      const ready = await http(server.url + '/ready');
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.json, { status: 'ready' });
      assert.equal(ready.headers.get('x-ogai-replica'), 'edge-7');
      assert.equal((await http(server.url + '/health')).status, 200);
      assert.equal((await http(server.url + '/nope')).headers.get('x-ogai-replica'), 'edge-7', 'errors carry it too');
      assert.match(server.stderr(), /replica "edge-7"/);

      const fresh = (await http(server.url + '/metrics')).text;
      assert.equal(metric(fresh, `vllm:time_to_first_token_seconds_count${label}`), 0);
      assert.match(fresh, /vllm:time_to_first_token_seconds_bucket\{model_name="stories260k",le="\+Inf"\} 0\n/);
      assert.doesNotMatch(fresh, /quantile="0\.99"\} 0\n/, 'a fresh server reports p99 0');
      assert.match(fresh, /ogai_time_to_first_token_seconds\{quantile="0\.99"\} NaN\n/);
      assert.match(fresh, /\nprocess_resident_memory_bytes \d+/);
      assert.match(fresh, /\nogai_replica_info\{replica_id="edge-7"\} 1\n/);
      assert.equal(metric(fresh, `vllm:num_requests_running${label}`), 0);

      // 8 long generations on 2 rows: 2 run, 6 wait (more than --max-concurrent).
      const answers = Array.from({ length: 8 }, () => postJson(server.url + '/v1/completions', long(400)));
      const samples = [];
      // (6 until the first pair ends; a slow poll may see a pair finished already)
      await waitFor('2 running and more than 2 waiting', async () => {
        const text = (await http(server.url + '/metrics')).text;
        return metric(text, `vllm:num_requests_running${label}`) === 2 && metric(text, `vllm:num_requests_waiting${label}`) > 2;
      });
      for (let i = 0; i < 40 && samples.length < 2; i++) {
        const text = (await http(server.url + '/metrics')).text;
        const usage = metric(text, `vllm:kv_cache_usage_perc${label}`);
        assert.equal(usage, metric(text, `vllm:gpu_cache_usage_perc${label}`));
        if (samples.length === 0 ? usage > 0 : usage > samples[0]) samples.push(usage);
        await sleep(50);
      }
      t.diagnostic(`KV cache usage rose ${samples.join(' -> ')}`);
      assert.equal(samples.length, 2, `KV cache usage did not rise with the running requests' tokens: ${samples}`);
      assert.ok(samples[1] <= 1);
      for (const a of answers) assert.equal((await a).status, 200);

      // An answer may reach the client a moment before its row is counted out.
      let done = '';
      await waitFor('the gauges back at 0', async () => {
        done = (await http(server.url + '/metrics')).text;
        return metric(done, `vllm:num_requests_running${label}`) === 0 && metric(done, `vllm:num_requests_waiting${label}`) === 0;
      });
      assert.equal(metric(done, `vllm:e2e_request_latency_seconds_count${label}`), 8);
      assert.equal(metric(done, `vllm:time_to_first_token_seconds_count${label}`), 8);
      assert.equal(metric(done, `vllm:inter_token_latency_seconds_count${label}`), 8 * 399);
      assert.equal(metric(done, `vllm:generation_tokens_total${label}`), 8 * 400);
      assert.equal(metric(done, `vllm:request_success_total{model_name="${model}",finished_reason="length"}`), 8);
      // Waiting requests waited: the queue-time histogram says so.
      assert.ok(metric(done, `vllm:request_queue_time_seconds_sum${label}`) > 0);
      assert.ok(metric(done, `vllm:time_to_first_token_seconds_bucket{model_name="${model}",le="+Inf"}`) === 8);
    } finally {
      await stopServer(server, 'SIGINT');
    }
  });

  it('drains on SIGTERM: not ready, refuses new work, finishes admitted work, exits 0', async () => {
    const server = await startServer(ogai, stories, ['--max-concurrent', '1', '--queue', '4', '--replica-id', 'd1',
                                                     '--drain-timeout', '60']);
    let exited = false;
    server.proc.on('exit', () => { exited = true; });
    // About a second of admitted work on one row (one running, three waiting), so the checks
    // below happen while it drains even on a fast machine.
    const admitted = Array.from({ length: 4 }, () => postJson(server.url + '/v1/completions', long(480)));
    await waitFor('one running and three waiting', async () => {
      const text = (await http(server.url + '/metrics')).text;
      return metric(text, `vllm:num_requests_running${label}`) === 1 && metric(text, `vllm:num_requests_waiting${label}`) === 3;
    });
    server.proc.kill('SIGTERM');
    await waitFor('/ready 503', async () => (await http(server.url + '/ready')).status === 503);
    const ready = await http(server.url + '/ready');
    assert.deepEqual(ready.json, { status: 'draining' });
    assert.equal((await http(server.url + '/health')).status, 200, 'a draining replica is alive');
    const refused = await postJson(server.url + '/v1/completions', long(4));
    assert.equal(refused.status, 503);
    assert.equal(refused.json.error.code, 'shutting_down');
    assert.equal(refused.headers.get('x-ogai-replica'), 'd1');
    assert.ok(!exited, 'it exited before its admitted requests finished');
    for (const r of await Promise.all(admitted)) {
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.usage.completion_tokens, 480);
    }
    // Already on its way out: no second signal (that would cut the drain short).
    const code = server.proc.exitCode ?? await new Promise((r) => server.proc.on('exit', r));
    const end = { code, stderr: server.stderr() };
    assert.equal(end.code, 0, end.stderr);
    assert.match(end.stderr, /\[d1\]: SIGTERM received, draining[\s\S]*\[d1\]: drained, stopping[\s\S]*\[d1\]: stopped/);
  });

  it('stops at --drain-timeout, cancelling what is left, and still exits 0', async () => {
    const server = await startServer(ogai, stories, ['--max-concurrent', '1', '--drain-timeout', '0.2']);
    // Far more than 0.2 s of work on one row: 6 x 480 tokens.
    const answers = Array.from({ length: 6 }, () =>
      postJson(server.url + '/v1/completions', long(480)).catch((e) => ({ status: `none (${e.cause})` })));
    await waitFor('one running', async () =>
      metric((await http(server.url + '/metrics')).text, `vllm:num_requests_running${label}`) === 1);
    const end = await stopServer(server, 'SIGTERM');
    assert.equal(end.code, 0, end.stderr);
    assert.match(end.stderr, /drain cut short/);
    assert.ok(end.ms < 10000, `took ${end.ms} ms`);
    const statuses = (await Promise.all(answers)).map((r) => r.status);
    assert.ok(statuses.every((s) => s === 200 || s === 503), `answers: ${statuses}`);
    assert.ok(statuses.includes(503), `nothing was cut short: ${statuses}`);
  });
});
