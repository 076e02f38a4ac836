// Decode benchmark driver: ogai (Model::generate), a bare ONNX Runtime C++ loop and transformers.js
// (`@huggingface/transformers`, onnxruntime-node) greedy-decoding stories260k from the same ONNX,
// one intra-op thread each. Rounds alternate the C++ side (decode_bench --json, which itself
// runs ogai and the bare loop back to back) with transformers.js runs in this process. Ratios:
// the median of back-to-back pairs (ogai/bare) or of rounds (ogai/transformers.js), which stay
// put when the machine's load changes, and the best of each side. The generated ids of all
// three must be identical.
//   bench/decode.sh [BUILD_DIR] [--steps N] [--rounds N] [--runs N]   (builds, then runs this)
//   node bench/decode.cjs DECODE_BENCH PACKAGE WORK_DIR [--steps N] [--rounds N] [--runs N]
'use strict';
const path = require('path');
const { execFileSync } = require('child_process');
const transformersFolder = require('../tests/peers/transformers_folder.cjs');
const { env, AutoModelForCausalLM, Tensor } = require('../tests/peers/peers.cjs')('@huggingface/transformers');

const PROMPT = [1, 403, 407, 261, 378];  // "Once upon a time" with BOS

function parseArgs(argv) {
  const [bench, pkg, work, ...rest] = argv;
  if (!work) throw new Error('usage: decode.cjs DECODE_BENCH PACKAGE WORK_DIR [--steps N] [--rounds N] [--runs N]');
  const o = { bench, pkg, work, steps: 400, rounds: 3, runs: 5 };
  for (let i = 0; i < rest.length; i += 2) {
    const key = rest[i].replace(/^--/, '');
    if (!(key in o) || ['bench', 'pkg', 'work'].includes(key) || !(Number(rest[i + 1]) > 0))
      throw new Error(`decode.cjs: bad option ${rest[i]} ${rest[i + 1]}`);
    o[key] = Number(rest[i + 1]);
  }
  return o;
}

// A streamer that notes when the first generated token arrives and when generation ends.
class Clock {
  constructor() { this.puts = 0; }
  put() { if (++this.puts === 2) this.first = process.hrtime.bigint(); }  // put #1 is the prompt
  end() { this.last = process.hrtime.bigint(); }
}

// Greedy, EOS ignored (eos_token_id null drops the EOS stopping criterion), steps + 1 new tokens.
async function peerRun(model, steps) {
  const ids = new Tensor('int64', BigInt64Array.from(PROMPT.map(BigInt)), [1, PROMPT.length]);
  const mask = new Tensor('int64', BigInt64Array.from(PROMPT.map(() => 1n)), [1, PROMPT.length]);
  const clock = new Clock();
  const start = process.hrtime.bigint();
  const out = await model.generate({ input_ids: ids, attention_mask: mask, max_new_tokens: steps + 1,
    do_sample: false, eos_token_id: null, streamer: clock });
  const call = Number(process.hrtime.bigint() - start) / 1e9;
  return { tokens: Array.from(out.data, Number).slice(PROMPT.length), call,
    decode: Number(clock.last - clock.first) / 1e9 };
}

function cppRun(o) {
  const out = execFileSync(o.bench, ['--package', o.pkg, '--steps', String(o.steps), '--runs', String(o.runs), '--json'],
    { encoding: 'utf8' });
  return JSON.parse(out);
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

async function measure(o, model) {
  const best = { bare: Infinity, ogai: Infinity, peer: Infinity, bareCall: Infinity, ogaiCall: Infinity,
    peerCall: Infinity, rt16: Infinity, rt450: Infinity, bare16: Infinity, bare450: Infinity, identical: true,
    paired: [], peerRounds: [] };
  await peerRun(model, 16);  // warm-up
  for (let r = 0; r < o.rounds; ++r) {
    const cpp = cppRun(o);
    best.bare = Math.min(best.bare, cpp.bare_decode_s);
    best.ogai = Math.min(best.ogai, cpp.ogai_decode_s);
    best.bareCall = Math.min(best.bareCall, cpp.bare_call_s);
    best.ogaiCall = Math.min(best.ogaiCall, cpp.ogai_call_s);
    best.rt16 = Math.min(best.rt16, cpp.runtime_us_ctx16);
    best.rt450 = Math.min(best.rt450, cpp.runtime_us_ctx450);
    best.bare16 = Math.min(best.bare16, cpp.bare_own_us_ctx16);
    best.bare450 = Math.min(best.bare450, cpp.bare_own_us_ctx450);
    best.identical = best.identical && cpp.identical;
    best.paired.push(...cpp.paired_ratios);
    let roundPeer = Infinity;
    for (let i = 0; i < o.runs; ++i) {
      const peer = await peerRun(model, o.steps);
      best.identical = best.identical && same(peer.tokens, cpp.tokens);
      roundPeer = Math.min(roundPeer, peer.decode);
      best.peerCall = Math.min(best.peerCall, peer.call);
    }
    best.peer = Math.min(best.peer, roundPeer);
    best.peerRounds.push(roundPeer / cpp.ogai_decode_s);  // this round's best of each
  }
  return best;
}

function median(values) {
  const v = [...values].sort((x, y) => x - y);
  return v.length % 2 ? v[v.length >> 1] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

function report(o, b) {
  const tps = (s) => (o.steps / s).toFixed(1).padStart(9);
  console.log(`stories260k greedy decode, ${o.steps} steps after the first token, one intra-op thread,`);
  console.log(`best of ${o.rounds} rounds x ${o.runs} runs (C++ and transformers.js alternating)`);
  console.log(`bare ONNX Runtime loop (C++):  ${tps(b.bare)} tok/s`);
  console.log(`ogai Model::generate:          ${tps(b.ogai)} tok/s`);
  console.log(`transformers.js generate:      ${tps(b.peer)} tok/s`);
  const ratio = (x) => x.toFixed(3).padStart(9);
  console.log(`ratio ogai / bare loop:        ${ratio(median(b.paired))}  (goal >= 0.95; median of back-to-back pairs)`);
  console.log(`  best of each side:           ${ratio(b.bare / b.ogai)}`);
  console.log(`ratio ogai / transformers.js:  ${ratio(median(b.peerRounds))}  (median over rounds of each round's best)`);
  console.log(`  best of each side:           ${ratio(b.peer / b.ogai)}`);
  console.log(`whole call (prefill + decode): ogai / bare ${(b.bareCall / b.ogaiCall).toFixed(3)}, ` +
    `ogai / transformers.js ${(b.peerCall / b.ogaiCall).toFixed(3)}`);
  const own = (a, z) => `context 16 ${a.toFixed(2)} us, context 450 ${z.toFixed(2)} us, ratio 450/16 ${(z / a).toFixed(2)}`;
  console.log('own time per decode token outside ONNX Runtime:');
  console.log(`  ogai:      ${own(b.rt16, b.rt450)}`);
  console.log(`  bare loop: ${own(b.bare16, b.bare450)}`);
  console.log(`identical tokens (ogai, bare loop, transformers.js): ${b.identical ? 'yes' : 'NO'}`);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  env.allowRemoteModels = false;
  env.localModelPath = transformersFolder(o.pkg, path.join(o.work, 'transformers_js'), 'stories260k');
  const model = await AutoModelForCausalLM.from_pretrained('stories260k',
    { dtype: 'fp32', session_options: { intraOpNumThreads: 1, interOpNumThreads: 1 } });
  const best = await measure(o, model);
  report(o, best);
  if (!best.identical) process.exit(1);
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
