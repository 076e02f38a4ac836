// Load benchmark for `ogai serve` on the batched engine: at each concurrency level N (closed loop:
// every client sends its next streamed request when the last one ended), aggregate generated
// tokens/s, time to first token p50/p99 and inter-token latency p99 (gaps between streamed
// events), and the throughput ratio against 1 client, all measured in the same run on one server.
//   node bench/serve_load.cjs OGAI_EXE [PKG] [--levels 1,4,16,64] [--requests-per-client N] [--max-tokens N] [-- serve flags...]
// PKG defaults to build/packages/stories260k. The server runs with --max-concurrent = the largest
// level, so every level's requests are rows of one batch.
'use strict';
const path = require('path');
const { startServer, stopServer } = require('../tests/serve/server_harness.cjs');

function parseArgs(argv) {
  const a = { levels: [1, 4, 16, 64], perClient: 2, maxTokens: 64, serveFlags: [] };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--') { a.serveFlags = argv.slice(i + 1); break; }
    if (k === '--levels') a.levels = argv[++i].split(',').map(Number);
    else if (k === '--requests-per-client') a.perClient = Number(argv[++i]);
    else if (k === '--max-tokens') a.maxTokens = Number(argv[++i]);
    else rest.push(k);
  }
  [a.ogai, a.pkg = path.join(__dirname, '../build/packages/stories260k')] = rest;
  if (!a.ogai || a.levels.some((n) => !(n >= 1)) || !(a.perClient >= 1) || !(a.maxTokens >= 1))
    throw new Error('usage: serve_load.cjs OGAI_EXE [PKG] [--levels 1,4,16,64] [--requests-per-client N] [--max-tokens N]');
  return a;
}

const prompts = ['Once upon a time', 'Lily wanted to', 'The little dog', 'Tom and Sam went', 'One day, a bird'];

// One streamed request; resolves with {ttft, gaps, tokens} (milliseconds).
async function request(url, model, i, a) {
  const body = { model, prompt: prompts[i % prompts.length], max_tokens: a.maxTokens, temperature: 0.8, seed: i,
                 ignore_eos: true, stream: true, stream_options: { include_usage: true } };
  const start = performance.now();
  const res = await fetch(url + '/v1/completions', { method: 'POST', headers: { 'content-type': 'application/json' },
                                                   body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const decoder = new TextDecoder();
  let buffer = '';
  let ttft = null;
  let last = null;
  let tokens = 0;
  const gaps = [];
  for await (const chunk of res.body) {
    const now = performance.now();
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!event.startsWith('data: {')) continue;
      const data = JSON.parse(event.slice(6));
      if (data.usage) tokens = data.usage.completion_tokens;
      if (!data.choices || !data.choices.length || !data.choices[0].text) continue;
      if (ttft === null) ttft = now - start;
      else gaps.push(now - last);
      last = now;
    }
  }
  return { ttft: ttft ?? performance.now() - start, gaps, tokens };
}

function quantile(values, p) {
  const v = [...values].sort((x, y) => x - y);
  return v.length ? v[Math.min(v.length - 1, Math.ceil(p * v.length) - 1)] : 0;
}

// `clients` closed-loop clients, `perClient` requests each.
async function load(url, model, clients, a) {
  const ttfts = [];
  const gaps = [];
  let tokens = 0;
  let next = 0;
  const total = clients * a.perClient;
  const start = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < total) {
      const r = await request(url, model, next++, a);
      ttfts.push(r.ttft);
      gaps.push(...r.gaps);
      tokens += r.tokens;
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  return { tokS: tokens / seconds, ttft50: quantile(ttfts, 0.5), ttft99: quantile(ttfts, 0.99),
           itl99: quantile(gaps, 0.99), seconds };
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const most = Math.max(...a.levels);
  const server = await startServer(a.ogai, a.pkg, ['--max-concurrent', String(most), '--queue', String(most * a.perClient),
                                                   ...a.serveFlags]);
  try {
    const model = (await (await fetch(server.url + '/v1/models')).json()).data[0].id;
    for (let i = 0; i < 4; i++) await request(server.url, model, i, a);  // warm-up
    console.log(`ogai serve ${path.basename(a.pkg)}: ${a.perClient} streamed requests per client x ${a.maxTokens} tokens, ` +
                `max-concurrent ${most}`);
    console.log('streams   tok/s (aggregate)   ratio vs 1   TTFT p50    TTFT p99    ITL p99');
    let base = null;
    for (const n of a.levels) {
      const r = await load(server.url, model, n, a);
      base = base ?? r.tokS;
      console.log(`${String(n).padStart(7)}   ${r.tokS.toFixed(0).padStart(17)}   ${(r.tokS / base).toFixed(2).padStart(9)}x` +
                  `   ${r.ttft50.toFixed(1).padStart(7)} ms  ${r.ttft99.toFixed(1).padStart(7)} ms  ${r.itl99.toFixed(1).padStart(7)} ms`);
    }
  } finally {
    await stopServer(server);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
