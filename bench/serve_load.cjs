// Load benchmark for `ogai serve`: N concurrent clients (closed loop, each sends its next request
// when the last one finished) against one server, compared with one client sending the same
// requests one at a time, measured in the same run on the same server.
//   node bench/serve_load.cjs OGAI_EXE [PKG] [--clients N] [--requests N] [--max-tokens N] [--stream] [-- serve flags...]
// PKG defaults to build/packages/stories260k. Prints aggregate generated tokens/s, request latency
// p50/p99, and the throughput ratio concurrent / sequential.
'use strict';
const path = require('path');
const { startServer, stopServer } = require('../tests/serve/server_harness.cjs');

function parseArgs(argv) {
  const a = { clients: 8, requests: 64, maxTokens: 64, stream: false, serveFlags: [] };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--') { a.serveFlags = argv.slice(i + 1); break; }
    if (k === '--clients') a.clients = Number(argv[++i]);
    else if (k === '--requests') a.requests = Number(argv[++i]);
    else if (k === '--max-tokens') a.maxTokens = Number(argv[++i]);
    else if (k === '--stream') a.stream = true;
    else rest.push(k);
  }
  [a.ogai, a.pkg = path.join(__dirname, '../build/packages/stories260k')] = rest;
  if (!a.ogai) throw new Error('usage: serve_load.cjs OGAI_EXE [PKG] [--clients N] [--requests N] [--max-tokens N] [--stream]');
  return a;
}

const prompts = ['Once upon a time', 'Lily wanted to', 'The little dog', 'Tom and Sam went', 'One day, a bird'];

// One request; resolves with {ms, tokens}. Streams are read to the end.
async function request(url, model, i, a) {
  const body = { model, prompt: prompts[i % prompts.length], max_tokens: a.maxTokens, temperature: 0.8, seed: i,
                 ignore_eos: true, stream: a.stream, stream_options: a.stream ? { include_usage: true } : undefined };
  const start = performance.now();
  const res = await fetch(url + '/v1/completions', { method: 'POST', headers: { 'content-type': 'application/json' },
                                                   body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text}`);
  const usage = a.stream ? JSON.parse(text.split('\n').filter((l) => l.includes('"usage":{')).pop().slice(6)).usage
                         : JSON.parse(text).usage;
  return { ms: performance.now() - start, tokens: usage.completion_tokens };
}

// `clients` closed-loop clients share `requests` requests; returns throughput and latencies.
async function load(url, model, clients, a) {
  const latencies = [];
  let tokens = 0;
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < a.requests) {
      const r = await request(url, model, next++, a);
      latencies.push(r.ms);
      tokens += r.tokens;
    }
  }));
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((x, y) => x - y);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)];
  return { tokS: tokens / seconds, p50: q(0.5), p99: q(0.99), seconds };
}

function report(name, r) {
  console.log(`${name.padEnd(26)} ${r.tokS.toFixed(0).padStart(8)} tok/s   p50 ${r.p50.toFixed(1).padStart(8)} ms   ` +
              `p99 ${r.p99.toFixed(1).padStart(8)} ms   (${r.seconds.toFixed(2)} s)`);
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const server = await startServer(a.ogai, a.pkg, ['--max-concurrent', String(a.clients), '--queue', String(a.requests),
                                                   ...a.serveFlags]);
  try {
    const model = (await (await fetch(server.url + '/v1/models')).json()).data[0].id;
    for (let i = 0; i < 4; i++) await request(server.url, model, i, a);  // warm-up
    console.log(`ogai serve ${path.basename(a.pkg)}: ${a.requests} requests x ${a.maxTokens} tokens` +
                `${a.stream ? ' (streamed)' : ''}, max-concurrent ${a.clients}`);
    const sequential = await load(server.url, model, 1, a);
    report('1 client (baseline)', sequential);
    const concurrent = await load(server.url, model, a.clients, a);
    report(`${a.clients} concurrent clients`, concurrent);
    console.log(`throughput ratio concurrent / sequential: ${(concurrent.tokS / sequential.tokS).toFixed(2)}x`);
  } finally {
    await stopServer(server);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
