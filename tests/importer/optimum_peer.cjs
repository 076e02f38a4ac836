// Peer check of imported Optimum / onnx-community exports: transformers.js (`@huggingface/transformers`
// over onnxruntime-node, offline) runs each folder tools/fixtures/optimum_export.py wrote, and
// `ogai generate --json --logprobs 5` on the folder (no inference_metadata.yaml: ogai imports it in
// memory and says so) must give the same prompt ids and greedy ids, and at every generated position
// the log-softmax (in double) of the logits transformers.js's own generate saw at that step (a
// logits processor records them) must equal ogai's chosen and top-5 log-probabilities within the
// TOLERANCE (1e-3) for every dtype, fp16 included (both run the same graph in ONNX Runtime with
// the same step schedule: the prompt in one run, then one token a run).
// Folders whose layout transformers.js does not load by default are compared with the folder
// holding the same weights in its layout (external data and the split export against the single
// graph); the merged decoder runs in transformers.js as `model_file_name: 'decoder_model_merged'`
// (it feeds use_cache_branch itself); the dtype variants as its `dtype` option, in ogai as --dtype.
//   node optimum_peer.cjs OGAI FOLDERS
'use strict';
const assert = require('assert');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { env, AutoTokenizer, AutoModelForCausalLM, LogitsProcessor } = require('../peers/peers.cjs')('@huggingface/transformers');

const [ogaiBin, folders] = process.argv.slice(2);
if (!ogaiBin || !folders) throw new Error('usage: optimum_peer.cjs OGAI FOLDERS');
const PROMPTS = ['Once upon a time', 'Tom had a red ball. He'];
const TOKENS = 24;
const TOP = 5;
const TOLERANCE = 1e-3;
const MARK = 300;  // optimum_export.py's merged probe token
// folder: what ogai imports; peer: the folder transformers.js runs; file: its model_file_name;
// dtype: transformers.js's dtype option and ogai's --dtype (fp32 when absent, neither flag given);
// graph: the graph ogai must say it imported.
const CASES = [
  { folder: 'optimum-llama', peer: 'optimum-llama', graph: 'onnx/model.onnx' },
  { folder: 'optimum-llama-external', peer: 'optimum-llama', graph: 'onnx/model.onnx' },
  { folder: 'optimum-qwen2', peer: 'optimum-qwen2', graph: 'onnx/model.onnx' },
  { folder: 'optimum-qwen2-nopos', peer: 'optimum-qwen2-nopos', graph: 'onnx/model.onnx' },
  { folder: 'optimum-qwen2-split', peer: 'optimum-qwen2', graph: 'onnx/decoder_with_past_model.onnx' },
  { folder: 'optimum-llama-merged', peer: 'optimum-llama-merged', file: 'decoder_model_merged',
    graph: 'onnx/decoder_model_merged.onnx' },
  { folder: 'optimum-llama-merged-probe', peer: 'optimum-llama-merged-probe', file: 'decoder_model_merged',
    graph: 'onnx/decoder_model_merged.onnx', probe: true },
  { folder: 'optimum-llama-dtypes', peer: 'optimum-llama-dtypes', graph: 'onnx/model.onnx' },
  { folder: 'optimum-llama-dtypes', peer: 'optimum-llama-dtypes', dtype: 'fp16', graph: 'onnx/model_fp16.onnx' },
  { folder: 'optimum-llama-dtypes', peer: 'optimum-llama-dtypes', dtype: 'q8', graph: 'onnx/model_quantized.onnx' },
  { folder: 'optimum-llama-dtypes', peer: 'optimum-llama-dtypes', dtype: 'q4', graph: 'onnx/model_q4.onnx' },
  { folder: 'optimum-llama-dtypes', peer: 'optimum-llama-dtypes', dtype: 'int8', graph: 'onnx/model_int8.onnx' },
  { folder: 'optimum-llama-dtypes', peer: 'optimum-llama-dtypes', dtype: 'uint8', graph: 'onnx/model_uint8.onnx' },
  { folder: 'optimum-gemma', peer: 'optimum-gemma', graph: 'onnx/model.onnx' },
];

function ogai(c, prompt) {
  const args = ['generate', path.join(folders, c.folder), '--prompt', prompt, '--max-new-tokens', String(TOKENS),
    '--temperature', '0', '--threads', '1', '--json', '--logprobs', String(TOP)];
  if (c.dtype) args.push('--dtype', c.dtype);
  const r = spawnSync(ogaiBin, args, { encoding: 'utf8' });
  assert.strictEqual(r.status, 0, `${c.folder}: ${r.stderr}`);
  const said = r.stderr.split('\n').filter((l) => l.includes('imported the Optimum export'));
  assert.strictEqual(said.length, 1, `${c.folder}: one line says the folder was imported: ${r.stderr}`);
  assert.ok(said[0].includes(`${c.graph}, dtype ${c.dtype || 'fp32'})`), `${c.folder}: ${said[0]}`);
  return JSON.parse(r.stdout);
}

// Records the logits transformers.js's generate sees at each step (batch 1), unchanged.
class Recorder extends LogitsProcessor {
  constructor() {
    super();
    this.steps = [];
  }
  _call(inputIds, logits) {
    this.steps.push(Float64Array.from(logits.data));
    return logits;
  }
}

function logSoftmax(row) {
  let max = -Infinity;
  for (const x of row) max = Math.max(max, x);
  let sum = 0;
  for (const x of row) sum += Math.exp(x - max);
  const lse = max + Math.log(sum);
  return Array.from(row, (x) => x - lse);
}

async function peer(c) {
  const tokenizer = await AutoTokenizer.from_pretrained(c.peer);
  const options = { dtype: c.dtype || 'fp32', session_options: { intraOpNumThreads: 1 } };
  if (c.file) options.model_file_name = c.file;
  const model = await AutoModelForCausalLM.from_pretrained(c.peer, options);
  return { tokenizer, model };
}

let worst = {};  // dtype -> largest logprob difference seen

async function check(c, { tokenizer, model }, prompt) {
  const inputs = tokenizer(prompt);
  const n = inputs.input_ids.dims[1];
  const recorder = new Recorder();
  const out = await model.generate({ ...inputs, max_new_tokens: TOKENS, do_sample: false, logits_processor: [recorder] });
  const all = Array.from(out.data, Number);
  const ours = ogai(c, prompt);
  const where = `${c.folder} ${c.dtype || 'fp32'} ${JSON.stringify(prompt)}`;
  assert.deepStrictEqual(ours.prompt_ids, all.slice(0, n), `${where}: prompt ids`);
  assert.deepStrictEqual(ours.ids, all.slice(n), `${where}: greedy ids`);
  assert.strictEqual(recorder.steps.length, ours.ids.length, `${where}: one recorded step per generated id`);
  // The probe's no-cache branch ran for the prompt only: its token first, never again.
  if (c.probe) assert.ok(ours.ids[0] === MARK && !ours.ids.slice(1).includes(MARK), `${where}: ${ours.ids}`);
  const tolerance = TOLERANCE;
  const key = c.dtype || 'fp32';
  ours.logprobs.forEach((entry, i) => {
    const lp = logSoftmax(recorder.steps[i]);
    const near = (got, id, what) => {
      const diff = Math.abs(got - lp[id]);
      worst[key] = Math.max(worst[key] || 0, diff);
      assert.ok(diff < tolerance, `${where} position ${i} ${what} id ${id}: ${got} vs ${lp[id]}`);
    };
    near(entry.logprob, entry.id, 'chosen');
    entry.top.forEach((t, k) => near(t.logprob, t.id, `top[${k}]`));
  });
  return ours.ids.length;
}

async function main() {
  env.allowRemoteModels = false;
  env.localModelPath = folders;
  let positions = 0;
  for (const c of CASES) {
    const p = await peer(c);
    for (const prompt of PROMPTS) positions += await check(c, p, prompt);
    await p.model.dispose();
    console.log(`${c.folder} ${c.dtype || 'fp32'}: greedy ids and top-${TOP} logprobs equal transformers.js on ${c.peer}`);
  }
  const imported = execFileSync(ogaiBin, ['import', path.join(folders, 'optimum-qwen2-split')], { encoding: 'utf8' });
  assert.ok(/artifact: "?onnx\/decoder_with_past_model\.onnx"?\}/.test(imported),
    imported);
  console.log(`Optimum peer: ${CASES.length} cases, ${positions} positions; largest logprob difference per dtype: ` +
    JSON.stringify(worst));
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
