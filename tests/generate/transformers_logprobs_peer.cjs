// Peer check of token log-probabilities: `@huggingface/transformers` (transformers.js, the same
// model.onnx through onnxruntime-node) runs one forward pass over prompt + ogai's greedy
// continuation, and the log-softmax of its raw logits at every generated position (computed here
// in double) must equal `ogai generate --json --logprobs 5`: the chosen token's logprob and each of
// the top 5 within 1e-3, and the top-5 ids (a swap is accepted only between near-equal values).
// The same pass checks `--prompt-logprobs`: entry i of the prompt (null for the first) against the
// log-softmax at position i-1 evaluated at prompt id i.
//   node transformers_logprobs_peer.cjs OGAI
'use strict';
const assert = require('assert');
const path = require('path');
const { execFileSync } = require('child_process');
const transformersFolder = require('../peers/transformers_folder.cjs');
const { env, AutoModelForCausalLM, Tensor } = require('../peers/peers.cjs')('@huggingface/transformers');

const [ogaiBin] = process.argv.slice(2);
if (!ogaiBin) throw new Error('usage: transformers_logprobs_peer.cjs OGAI');
const pkg = path.join(process.env.OGAI_BINARY_DIR, 'packages', 'stories260k');
const TOP = 5;
const TOLERANCE = 1e-3;
const CASES = [
  { prompt: 'Once upon a time', tokens: 40 },
  { prompt: 'Tom had a red ball. He', tokens: 32 },
];

function ogaiLogprobs(prompt, tokens) {
  const out = execFileSync(ogaiBin, ['generate', pkg, '--prompt', prompt, '--max-new-tokens', String(tokens),
    '--threads', '1', '--temperature', '0', '--json', '--logprobs', String(TOP), '--prompt-logprobs'], { encoding: 'utf8' });
  return JSON.parse(out);
}

// Log-softmax (double) of each row of the peer's logits [1, L, V] at positions `from`..`to`-1.
function peerLogSoftmax(logits, from, to) {
  const [, , vocab] = logits.dims;
  const rows = [];
  for (let p = from; p < to; ++p) {
    const row = logits.data.subarray(p * vocab, (p + 1) * vocab);
    let max = -Infinity;
    for (const x of row) max = Math.max(max, x);
    let sum = 0;
    for (const x of row) sum += Math.exp(x - max);
    const lse = max + Math.log(sum);
    rows.push(Array.from(row, (x) => x - lse));
  }
  return rows;
}

function topIds(lp, n) {
  return lp.map((v, id) => ({ id, v })).sort((a, b) => b.v - a.v || a.id - b.id).slice(0, n);
}

// One entry ({id, logprob, top}) against the peer's log-softmax row `lp`.
function checkEntry(entry, lp, where) {
  assert.ok(Math.abs(entry.logprob - lp[entry.id]) < TOLERANCE, `${where}: logprob ${entry.logprob} vs ${lp[entry.id]}`);
  const peerTop = topIds(lp, TOP);
  assert.strictEqual(entry.top.length, TOP, `${where}: top length`);
  entry.top.forEach((t, k) => {
    assert.ok(Math.abs(t.logprob - lp[t.id]) < TOLERANCE, `${where}: top[${k}] id ${t.id}: ${t.logprob} vs ${lp[t.id]}`);
    const same = t.id === peerTop[k].id || Math.abs(lp[t.id] - peerTop[k].v) < 1e-5;
    assert.ok(same, `${where}: top[${k}] id ${t.id} vs the peer's ${peerTop[k].id}`);
  });
}

// Prompt entries: null first, then entry i against the row at position i-1.
function checkPrompt(ours, logits, prompt) {
  const n = ours.prompt_ids.length;
  assert.strictEqual(ours.prompt_logprobs.length, n, `${prompt}: one prompt entry per prompt id`);
  assert.strictEqual(ours.prompt_logprobs[0], null, `${prompt}: the first prompt entry is null`);
  peerLogSoftmax(logits, 0, n - 1).forEach((lp, i) => {
    const entry = ours.prompt_logprobs[i + 1];
    assert.strictEqual(entry.id, ours.prompt_ids[i + 1], `${prompt} prompt position ${i + 1}: id`);
    checkEntry(entry, lp, `${JSON.stringify(prompt)} prompt position ${i + 1}`);
  });
  return n - 1;
}

async function main() {
  env.allowRemoteModels = false;
  env.localModelPath = transformersFolder(pkg, path.join(process.env.OGAI_BINARY_DIR, 'transformers_js'), 'stories260k');
  const model = await AutoModelForCausalLM.from_pretrained('stories260k',
    { dtype: 'fp32', session_options: { intraOpNumThreads: 1 } });
  let positions = 0;
  for (const { prompt, tokens } of CASES) {
    const ours = ogaiLogprobs(prompt, tokens);
    assert.strictEqual(ours.logprobs.length, ours.ids.length, `${prompt}: one entry per id`);
    const all = [...ours.prompt_ids, ...ours.ids];
    const ids = new Tensor('int64', BigInt64Array.from(all, BigInt), [1, all.length]);
    const mask = new Tensor('int64', new BigInt64Array(all.length).fill(1n), [1, all.length]);
    const { logits } = await model({ input_ids: ids, attention_mask: mask });
    const n = ours.prompt_ids.length;
    const rows = peerLogSoftmax(logits, n - 1, n - 1 + ours.ids.length);
    rows.forEach((lp, i) => {
      const where = `${JSON.stringify(prompt)} position ${i}`;
      const entry = ours.logprobs[i];
      assert.strictEqual(entry.id, ours.ids[i], `${where}: id`);
      checkEntry(entry, lp, where);
      assert.strictEqual(entry.top[0].id, ours.ids[i], `${where}: greedy picks top[0]`);
      ++positions;
    });
    const promptPositions = checkPrompt(ours, logits, prompt);
    positions += promptPositions;
    console.log(`${JSON.stringify(prompt)}: ${rows.length} generated and ${promptPositions} prompt positions agree`);
  }
  console.log(`transformers.js logprobs peer: ${positions} positions checked`);
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
