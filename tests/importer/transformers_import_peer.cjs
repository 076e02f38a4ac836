// Peer check of an imported ONNX Runtime GenAI folder: transformers.js (`@huggingface/transformers`
// over onnxruntime-node) greedy-generates from stories260k, and `ogai generate --json` on a GenAI
// folder of the same graph (tests/data/genai/stories260k/genai_config.json beside model.onnx and
// the tokenizer files, no inference_metadata.yaml: ogai imports the config in memory) must produce
// the same prompt ids and generated ids.
//   node transformers_import_peer.cjs OGAI
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const transformersFolder = require('../peers/transformers_folder.cjs');
const { env, AutoTokenizer, AutoModelForCausalLM } = require('../peers/peers.cjs')('@huggingface/transformers');

const [ogaiBin] = process.argv.slice(2);
if (!ogaiBin) throw new Error('usage: transformers_import_peer.cjs OGAI');
const source = process.env.OGAI_SOURCE_DIR;
const binary = process.env.OGAI_BINARY_DIR;
const stories = path.join(binary, 'packages', 'stories260k');
const PROMPTS = ['Once upon a time', 'The little dog', 'Tom had a red ball. He'];
const TOKENS = 64;

// build/importer_folders/peer-stories: the GenAI folder (copies, so it is confined like a real one).
function genaiFolder() {
  const dir = path.join(binary, 'importer_folders', 'peer-stories');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const file of ['model.onnx', 'tokenizer.json', 'tokenizer_config.json', 'generation_config.json'])
    fs.copyFileSync(path.join(stories, file), path.join(dir, file));
  fs.copyFileSync(path.join(source, 'tests', 'data', 'genai', 'stories260k', 'genai_config.json'),
    path.join(dir, 'genai_config.json'));
  return dir;
}

async function main() {
  const folder = genaiFolder();
  env.allowRemoteModels = false;
  env.localModelPath = transformersFolder(stories, path.join(binary, 'transformers_js'), 'stories260k');
  const tokenizer = await AutoTokenizer.from_pretrained('stories260k');
  const model = await AutoModelForCausalLM.from_pretrained('stories260k',
    { dtype: 'fp32', session_options: { intraOpNumThreads: 1 } });
  for (const prompt of PROMPTS) {
    const inputs = tokenizer(prompt);
    const n = inputs.input_ids.dims[1];
    const out = await model.generate({ ...inputs, max_new_tokens: TOKENS, do_sample: false });
    const all = Array.from(out.data, Number);
    const ours = JSON.parse(execFileSync(ogaiBin, ['-q', 'generate', folder, '--prompt', prompt, '--max-new-tokens',
      String(TOKENS), '--threads', '1', '--temperature', '0', '--json'], { encoding: 'utf8' }));
    assert.deepStrictEqual(ours.prompt_ids, all.slice(0, n), `${prompt}: prompt ids`);
    assert.deepStrictEqual(ours.ids, all.slice(n), `${prompt}: generated ids`);
    console.log(`${JSON.stringify(prompt)}: ${ours.ids.length} ids identical`);
  }
  console.log(`transformers.js peer: the imported GenAI folder matched on ${PROMPTS.length} prompts`);
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
