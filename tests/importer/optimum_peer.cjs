// Peer check of imported Optimum / onnx-community exports: transformers.js (`@huggingface/transformers`
// over onnxruntime-node, offline) runs each folder tools/fixtures/optimum_export.py wrote, and
// `ogai generate --json --logprobs 5` on the folder (no inference_metadata.yaml: ogai imports it in
// memory) must give the same prompt ids and greedy ids, and at every generated position the
// log-softmax of the peer's logits (one forward pass over prompt + ids, in double) must equal
// ogai's chosen and top-5 log-probabilities within 1e-3.
// Folders whose layout transformers.js does not load itself are compared with the folder holding
// the same weights in its layout: external data and the split export against the single graph.
// The merged export is refused by name (exit 1, `use_cache_branch`).
//   node optimum_peer.cjs OGAI FOLDERS
'use strict';
const assert = require('assert');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { env, AutoTokenizer, AutoModelForCausalLM, Tensor } = require('../peers/peers.cjs')('@huggingface/transformers');

const [ogaiBin, folders] = process.argv.slice(2);
if (!ogaiBin || !folders) throw new Error('usage: optimum_peer.cjs OGAI FOLDERS');
const PROMPTS = ['Once upon a time', 'Tom had a red ball. He'];
const TOKENS = 24;
const TOP = 5;
const TOLERANCE = 1e-3;
// [folder ogai imports, folder transformers.js runs]
const CASES = [
  ['optimum-llama', 'optimum-llama'],
  ['optimum-llama-external', 'optimum-llama'],
  ['optimum-qwen2', 'optimum-qwen2'],
  ['optimum-qwen2-nopos', 'optimum-qwen2-nopos'],
  ['optimum-qwen2-split', 'optimum-qwen2'],
];

function ogai(folder, prompt) {
  const r = spawnSync(ogaiBin, ['generate', path.join(folders, folder), '--prompt', prompt, '--max-new-tokens',
    String(TOKENS), '--temperature', '0', '--threads', '1', '--json', '--logprobs', String(TOP)], { encoding: 'utf8' });
  assert.strictEqual(r.status, 0, `${folder}: ${r.stderr}`);
  const said = r.stderr.split('\n').filter((l) => l.includes('imported the Optimum export'));
  assert.strictEqual(said.length, 1, `${folder}: one line says the folder was imported: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function logSoftmax(logits, position) {
  const vocab = logits.dims[2];
  const row = logits.data.subarray(position * vocab, (position + 1) * vocab);
  let max = -Infinity;
  for (const x of row) max = Math.max(max, x);
  let sum = 0;
  for (const x of row) sum += Math.exp(x - max);
  const lse = max + Math.log(sum);
  return Array.from(row, (x) => x - lse);
}

async function peer(name) {
  const tokenizer = await AutoTokenizer.from_pretrained(name);
  const model = await AutoModelForCausalLM.from_pretrained(name, { dtype: 'fp32', session_options: { intraOpNumThreads: 1 } });
  return { tokenizer, model };
}

async function check(folder, { tokenizer, model }, prompt) {
  const inputs = tokenizer(prompt);
  const n = inputs.input_ids.dims[1];
  const out = await model.generate({ ...inputs, max_new_tokens: TOKENS, do_sample: false });
  const all = Array.from(out.data, Number);
  const ours = ogai(folder, prompt);
  const where = `${folder} ${JSON.stringify(prompt)}`;
  assert.deepStrictEqual(ours.prompt_ids, all.slice(0, n), `${where}: prompt ids`);
  assert.deepStrictEqual(ours.ids, all.slice(n), `${where}: greedy ids`);
  const ids = [...ours.prompt_ids, ...ours.ids];
  const { logits } = await model({
    input_ids: new Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
    attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
  });
  ours.logprobs.forEach((entry, i) => {
    const lp = logSoftmax(logits, n - 1 + i);
    assert.ok(Math.abs(entry.logprob - lp[entry.id]) < TOLERANCE, `${where} position ${i}: ${entry.logprob} vs ${lp[entry.id]}`);
    entry.top.forEach((t, k) => assert.ok(Math.abs(t.logprob - lp[t.id]) < TOLERANCE,
      `${where} position ${i} top[${k}] id ${t.id}: ${t.logprob} vs ${lp[t.id]}`));
  });
  return ours.ids.length;
}

async function main() {
  env.allowRemoteModels = false;
  env.localModelPath = folders;
  const peers = {};
  let positions = 0;
  for (const [folder, peerFolder] of CASES) {
    peers[peerFolder] = peers[peerFolder] || await peer(peerFolder);
    for (const prompt of PROMPTS) positions += await check(folder, peers[peerFolder], prompt);
    console.log(`${folder}: greedy ids and top-${TOP} logprobs equal transformers.js on ${peerFolder}`);
  }
  const merged = spawnSync(ogaiBin, ['generate', path.join(folders, 'optimum-llama-merged'), '--prompt', 'x'],
    { encoding: 'utf8' });
  assert.strictEqual(merged.status, 1, merged.stderr);
  assert.ok(merged.stderr.includes("its input 'use_cache_branch'") && merged.stderr.includes('--no-post-process'),
    merged.stderr);
  const imported = execFileSync(ogaiBin, ['import', path.join(folders, 'optimum-qwen2-split')], { encoding: 'utf8' });
  assert.ok(/artifact: "?onnx\/decoder_with_past_model\.onnx"?\}/.test(imported),
    imported);
  console.log(`Optimum peer: ${CASES.length} folders, ${positions} positions; the merged export refused by name`);
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
