// Streaming with n > 1 on `ogai serve`: one streamed completion with n choices (one shared
// prefill) vs. the same n choices as n concurrent streamed requests with seeds seed + i, on one
// server in the same run, in paired rounds (the order alternates). Per side: wall time until
// every choice ended, and time until every choice had its first text; prints the medians and the
// median of the per-round ratios (n choices / n requests). The texts of the two sides must agree
// (choice i equals the request with seed + i), or it exits 1.
//   node bench/serve_stream_n.cjs OGAI_EXE [PKG] [--n 4] [--rounds 9] [--max-tokens 64] [--prompt-words 150] [-- serve flags...]
// PKG defaults to build/packages/stories260k; the server runs with --prefix-cache-mib 0 (so no
// side reuses the other's prompt) and --max-concurrent n.
'use strict';
const path = require('path');
const { startServer, stopServer } = require('../tests/serve/server_harness.cjs');

function parseArgs(argv) {
  const a = { n: 4, rounds: 9, maxTokens: 64, promptWords: 150, serveFlags: [] };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--') { a.serveFlags = argv.slice(i + 1); break; }
    if (k === '--n') a.n = Number(argv[++i]);
    else if (k === '--rounds') a.rounds = Number(argv[++i]);
    else if (k === '--max-tokens') a.maxTokens = Number(argv[++i]);
    else if (k === '--prompt-words') a.promptWords = Number(argv[++i]);
    else rest.push(k);
  }
  [a.ogai, a.pkg = path.join(__dirname, '../build/packages/stories260k')] = rest;
  if (!a.ogai || !(a.n >= 2) || !(a.rounds >= 1) || !(a.maxTokens >= 1) || !(a.promptWords >= 1))
    throw new Error('usage: serve_stream_n.cjs OGAI_EXE [PKG] [--n 4] [--rounds 9] [--max-tokens 64] [--prompt-words 150]');
  return a;
}

// One streamed request; resolves with {texts[index], firstAt[index]} (ms since `start`).
async function stream(url, body, start) {
  const res = await fetch(url + '/v1/completions', { method: 'POST', headers: { 'content-type': 'application/json' },
                                                   body: JSON.stringify({ ...body, stream: true }) });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const decoder = new TextDecoder();
  const texts = [];
  const firstAt = [];
  let buffer = '';
  for await (const chunk of res.body) {
    const now = performance.now() - start;
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!event.startsWith('data: {')) continue;
      for (const c of JSON.parse(event.slice(6)).choices ?? []) {
        texts[c.index] = (texts[c.index] ?? '') + c.text;
        if (c.text && firstAt[c.index] === undefined) firstAt[c.index] = now;
      }
    }
  }
  return { texts, firstAt };
}

async function oneRequest(url, body) {
  const start = performance.now();
  const r = await stream(url, body, start);
  return { texts: r.texts, wall: performance.now() - start, first: Math.max(...r.firstAt) };
}

async function manyRequests(url, body) {
  const start = performance.now();
  const rs = await Promise.all(Array.from({ length: body.n }, (_, i) =>
    stream(url, { ...body, n: 1, seed: body.seed + i }, start)));
  return { texts: rs.map((r) => r.texts[0]), wall: performance.now() - start, first: Math.max(...rs.map((r) => r.firstAt[0])) };
}

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const server = await startServer(a.ogai, a.pkg, ['--max-concurrent', String(a.n), '--prefix-cache-mib', '0', ...a.serveFlags]);
  const model = JSON.parse(await (await fetch(server.url + '/v1/models')).text()).data[0].id;
  const words = 'Once upon a time there was a little girl named Lily who liked to play in the park'.split(' ');
  const prompt = Array.from({ length: a.promptWords }, (_, i) => words[i % words.length]).join(' ');
  const rows = { one: [], many: [] };
  const ratios = { wall: [], first: [] };
  try {
    for (let r = 0; r <= a.rounds; r++) {  // round 0 warms up
      const body = { model, prompt, max_tokens: a.maxTokens, temperature: 0.8, seed: 100 * r, ignore_eos: true, n: a.n };
      let one;
      let many;
      if (r % 2) {
        one = await oneRequest(server.url, body);
        many = await manyRequests(server.url, body);
      } else {
        many = await manyRequests(server.url, body);
        one = await oneRequest(server.url, body);
      }
      if (JSON.stringify(one.texts) !== JSON.stringify(many.texts)) {
        console.error('the n choices and the n requests disagree:', JSON.stringify(one.texts), JSON.stringify(many.texts));
        process.exitCode = 1;
        return;
      }
      if (r === 0) continue;
      rows.one.push(one);
      rows.many.push(many);
      ratios.wall.push(one.wall / many.wall);
      ratios.first.push(one.first / many.first);
    }
  } finally {
    await stopServer(server);
  }
  const fmt = (xs, k) => median(xs.map((x) => x[k])).toFixed(1);
  console.log(`n=${a.n}, ${a.promptWords}-word prompt, ${a.maxTokens} tokens per choice, ${a.rounds} paired rounds (medians)`);
  console.log(`  one request, n choices : all ended ${fmt(rows.one, 'wall')} ms, every choice's first text ${fmt(rows.one, 'first')} ms`);
  console.log(`  n requests            : all ended ${fmt(rows.many, 'wall')} ms, every request's first text ${fmt(rows.many, 'first')} ms`);
  console.log(`  ratio (n choices / n requests): wall ${median(ratios.wall).toFixed(2)}, first text ${median(ratios.first).toFixed(2)}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
