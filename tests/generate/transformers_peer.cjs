// Peer check: `@huggingface/transformers` (transformers.js, running the same model.onnx through
// onnxruntime-node) greedy-generates from the stories260k package, and `ogai generate --json`
// must produce the same prompt ids, generated ids, finish and text.
//   node transformers_peer.cjs OGAI
// The peer reads a transformers.js model folder built here in the build directory (symlinks to
// the assembled package's files: onnx/model.onnx, tokenizer.json, tokenizer_config.json,
// generation_config.json, config.json), offline. ogai's text must equal what the text-generation
// pipeline returns with `return_full_text: false`: the decode of prompt + generated ids minus the
// decoded prompt (special tokens skipped), so a first token like "▁was" keeps its leading space
// and prompt + text reads right.
// "Once upon a time" is also checked against the 60 golden ids and text in
// ../shared/models/stories260k/README.md.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const transformersFolder = require('../peers/transformers_folder.cjs');
const { env, AutoTokenizer, AutoModelForCausalLM } = require('../peers/peers.cjs')('@huggingface/transformers');

const [ogaiBin] = process.argv.slice(2);
if (!ogaiBin) throw new Error('usage: transformers_peer.cjs OGAI');
const shared = process.env.OGAI_SHARED_DIR;
const binary = process.env.OGAI_BINARY_DIR;
const pkg = path.join(binary, 'packages', 'stories260k');
const EOS = 2;  // generation_config.json eos_token_id

// Prompts and token counts: the golden prompt well past 60 tokens, a few others (one whose
// continuation starts with a word, so the leading-space rule of the text matters).
const CASES = [
  { prompt: 'Once upon a time', tokens: 80 },
  { prompt: 'The little dog', tokens: 64 },
  { prompt: 'Lily and Ben went to the park', tokens: 64 },
  { prompt: 'Tom had a red ball. He', tokens: 64 },
];

// The 60 golden ids and their text from the model's README.
function golden() {
  const readme = fs.readFileSync(path.join(shared, 'models', 'stories260k', 'README.md'), 'utf8');
  const block = readme.split('Greedy (argmax) next 60 token ids:')[1];
  if (!block) throw new Error('README.md has no golden id block');
  const ids = [];
  for (const line of block.split('\n').slice(1)) {
    if (!/^\s+\d/.test(line)) { if (ids.length) break; continue; }
    ids.push(...line.trim().split(/\s+/).map(Number));
  }
  const text = JSON.parse(readme.match(/which decode to: ("(?:[^"\\]|\\.)*")/)[1]);
  assert.strictEqual(ids.length, 60, `golden block has ${ids.length} ids`);
  return { ids, text };
}

function ogaiGenerate(prompt, tokens) {
  const out = execFileSync(ogaiBin, ['generate', pkg, '--prompt', prompt, '--max-new-tokens', String(tokens),
    '--threads', '1', '--temperature', '0', '--json'], { encoding: 'utf8' });
  return JSON.parse(out);
}

async function peerGenerate(tokenizer, model, prompt, tokens) {
  const inputs = tokenizer(prompt);
  const n = inputs.input_ids.dims[1];
  const out = await model.generate({ ...inputs, max_new_tokens: tokens, do_sample: false });
  const all = Array.from(out.data, Number);
  const ids = all.slice(n);
  const full = tokenizer.decode(all, { skip_special_tokens: true });
  const prefix = tokenizer.decode(all.slice(0, n), { skip_special_tokens: true });
  assert.ok(full.startsWith(prefix), `${JSON.stringify(prompt)}: the full decode does not start with the prompt's`);
  return { promptIds: all.slice(0, n), ids, text: full.slice(prefix.length) };
}

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) ++i;
  return `at index ${i}: ${JSON.stringify(a.slice(i, i + 6))} vs ${JSON.stringify(b.slice(i, i + 6))}`;
}

async function main() {
  env.allowRemoteModels = false;
  env.localModelPath = transformersFolder(pkg, path.join(binary, 'transformers_js'), 'stories260k');
  const options = { dtype: 'fp32', session_options: { intraOpNumThreads: 1 } };
  const tokenizer = await AutoTokenizer.from_pretrained('stories260k');
  const model = await AutoModelForCausalLM.from_pretrained('stories260k', options);
  const gold = golden();
  let checks = 0;
  for (const { prompt, tokens } of CASES) {
    const peer = await peerGenerate(tokenizer, model, prompt, tokens);
    const ours = ogaiGenerate(prompt, tokens);
    const where = JSON.stringify(prompt);
    assert.deepStrictEqual(ours.prompt_ids, peer.promptIds, `${where}: prompt ids ${firstDifference(ours.prompt_ids, peer.promptIds)}`);
    assert.deepStrictEqual(ours.ids, peer.ids, `${where}: generated ids ${firstDifference(ours.ids, peer.ids)}`);
    const finish = peer.ids[peer.ids.length - 1] === EOS ? 'eos' : 'length';
    assert.strictEqual(ours.finish_reason, finish, `${where}: finish_reason`);
    assert.strictEqual(ours.text, peer.text, `${where}: text`);
    checks += 4;
    if (prompt === 'Once upon a time') {
      assert.deepStrictEqual(peer.ids.slice(0, 60), gold.ids, `transformers.js vs golden ids ${firstDifference(peer.ids, gold.ids)}`);
      assert.deepStrictEqual(ours.ids.slice(0, 60), gold.ids, `ogai vs golden ids ${firstDifference(ours.ids, gold.ids)}`);
      assert.ok(ours.text.startsWith(gold.text), `ogai text ${JSON.stringify(ours.text)} does not start with the golden text`);
      checks += 3;
    }
    console.log(`${where}: ${ours.ids.length} ids identical (${ours.finish_reason}): ${JSON.stringify(ours.text.slice(0, 60))}...`);
  }
  console.log(`transformers.js peer: ${checks} checks passed on ${CASES.length} prompts`);
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
