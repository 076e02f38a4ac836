// Phi-3-V's numbered image tags through the native engine (issue 35, item 3): the computing
// stand-in tools/genai/multimodal.py writes (mm-phi3v-hd, CTest fixture
// `importer_multimodal_folders`: the shared phi3-v tokenizer and processor_config.json, a vision
// graph returning Phi-3-V's soft-token count of rows) is run by `ogai generate --image`, and the
// prompt ids it reports are compared with transformers.js:
//  - one landscape or square image: Phi3VProcessor's input_ids, exactly (it writes <|image|> x
//    num_img_tokens and negates that token's id; Hugging Face's Python processor and ONNX Runtime
//    GenAI write -N for the N-th image, so each negative id of transformers.js is read as -1);
//  - any image, and two images: the Python processor's rule built from transformers.js'
//    tokenizer (each text piece between tags tokenized alone, the later pieces without their BOS,
//    -N x the N-th image's count), exactly;
//  - the counts: Phi3VImageProcessor's num_img_tokens, and the HD rule derived by hand here
//    (portrait transposed, scale, width s * 336, height padded to 336, (rows * columns + 1) * 144
//    + 1 + (rows + 1) * 12), which portrait images need: transformers.js does not transpose them
//    (it gives a 200 x 900 image a zero width).
// A chat turn's image parts become the tags, in order, before its text.
// Another image of the same size changes the first token's log-probability (the features reach
// the decoder); prompt log-probabilities are null at the image's soft tokens; tags that do not
// number the images 1, 2, ... in order, and counts that differ, are refused naming the tag.
//   node phi3v_prompt_hf.cjs OGAI_EXE
'use strict';
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const hf = require('../peers/peers.cjs')('@huggingface/transformers');

const [ogai] = process.argv.slice(2);
if (!ogai) throw new Error('usage: phi3v_prompt_hf.cjs OGAI_EXE');
const binary = process.env.OGAI_BINARY_DIR || '.';
const standIn = path.join(binary, 'importer_folders', 'multimodal', 'mm-phi3v-hd');
const shared = path.join(process.env.OGAI_SHARED_DIR, 'ortgenai', 'phi3-v');
const work = path.join(binary, 'test_e2e', 'phi3v_prompt_hf');
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(path.join(work, 'models', 'phi3v'), { recursive: true });
for (const f of ['tokenizer.json', 'tokenizer_config.json'])
  fs.symlinkSync(path.join(shared, f), path.join(work, 'models', 'phi3v', f));

let failures = 0;
function check(ok, what) {
  if (!ok) { failures++; console.log(`FAIL ${what}`); }
}

function noiseImage(name, width, height, seed) {
  const file = path.join(work, name);
  execFileSync('/usr/bin/python3', ['-c', `
import numpy as np, sys
from PIL import Image
rng = np.random.default_rng(${seed})
Image.fromarray(rng.integers(0, 256, (${height}, ${width}, 3), dtype=np.uint8)).save(sys.argv[1])`, file]);
  return file;
}

// Phi-3-V's HD canvas and soft-token count for a width x height image, 4 crops, 144 tokens.
function handCount(width, height) {
  const portrait = width < height;
  const [w, h] = portrait ? [height, width] : [width, height];
  const ratio = w / h;
  let scale = 1;
  while (scale * Math.ceil(scale / ratio) <= 4) scale++;
  scale--;
  const newW = Math.floor(scale * 336);
  const newH = Math.ceil(Math.floor(newW / ratio) / 336) * 336;
  const [cw, ch] = portrait ? [newH, newW] : [newW, newH];
  const rows = ch / 336, columns = cw / 336;
  return (rows * columns + 1) * 144 + 1 + (rows + 1) * 12;
}

function generate(prompt, images, extra = []) {
  const args = ['generate', standIn, '--json', '--max-new-tokens', '1', '--logprobs', '0', ...extra, '--prompt', prompt];
  for (const image of images) args.push('--image', image);
  return spawnSync(ogai, args, { encoding: 'utf8' });
}

function reply(r, what) {
  if (r.status !== 0) {
    check(false, `${what}: ogai exited ${r.status}: ${r.stderr}`);
    return null;
  }
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

function same(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function firstDifference(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return `at ${i}: ${a[i]} vs ${b[i]}`;
  return 'none';
}

(async () => {
  hf.env.allowRemoteModels = false;
  hf.env.localModelPath = path.join(work, 'models');
  const tokenizer = await hf.AutoTokenizer.from_pretrained('phi3v');
  const imageProcessor = new hf.Phi3VImageProcessor({
    num_crops: 4, num_img_tokens: 144, do_rescale: true, rescale_factor: 1 / 255,
    image_mean: [0.48145466, 0.4578275, 0.40821073], image_std: [0.26862954, 0.26130258, 0.27577711],
  });
  const processor = new hf.Phi3VProcessor({}, { image_processor: imageProcessor, tokenizer });
  const ids = (tensor) => Array.from(tensor.data, Number);
  const countOf = async (file) => Number((await imageProcessor(await hf.RawImage.read(file))).num_img_tokens[0]);

  // The Python processor's rule from transformers.js' pieces: each text piece between tags
  // tokenized alone, the later ones without their BOS, -N x count(N) for the N-th tag.
  const pythonRule = (text, counts) => {
    const pieces = text.split(/<\|image_\d+\|>/);
    let out = ids(tokenizer(pieces[0]).input_ids);
    for (let n = 1; n < pieces.length; n++)
      out = out.concat(Array(counts[n - 1]).fill(-n), ids(tokenizer(pieces[n]).input_ids).slice(1));
    return out;
  };

  // One image. Landscape and square: Phi3VProcessor itself, on a prompt whose tag is followed by
  // a word (its <|image|> has rstrip, so it would drop a newline the Python processor keeps).
  // Every size, portrait too: the Python rule with the hand-derived count (transformers.js'
  // image processor does not transpose portrait images as the Python HD transform does).
  const sizes = [[500, 300], [1, 1], [1400, 200], [1024, 768], [300, 1000], [17, 4000]];
  const word = '<|user|>\n<|image_1|>What is shown in this image?<|end|>\n<|assistant|>\n';
  const newline = '<|user|>\n<|image_1|>\nWhat is shown in this image?<|end|>\n<|assistant|>\n';
  for (const [i, [w, h]] of sizes.entries()) {
    const file = noiseImage(`one_${w}x${h}.png`, w, h, i + 1);
    if (w >= h) {
      const expected = ids((await processor(word, await hf.RawImage.read(file))).input_ids).map((x) => (x < 0 ? -1 : x));
      const got = reply(generate(word, [file]), `${w}x${h}`);
      if (got)
        check(same(got.prompt_ids, expected),
          `${w}x${h}: prompt ids differ from Phi3VProcessor's (${firstDifference(got.prompt_ids, expected)})`);
      check(await countOf(file) === handCount(w, h), `${w}x${h}: transformers.js counts ${await countOf(file)}, the HD rule ${handCount(w, h)}`);
    }
    if (w >= h && w !== 500) continue;  // the newline prompt: one landscape image and the portrait ones
    const got = reply(generate(newline, [file]), `${w}x${h} (newline)`);
    const expected = pythonRule(newline, [handCount(w, h)]);
    if (got)
      check(same(got.prompt_ids, expected), `${w}x${h}: prompt ids differ from the Python rule (${firstDifference(got.prompt_ids, expected)})`);
  }

  // Two images, interleaved with text.
  const a = noiseImage('two_a.png', 640, 480, 11), b = noiseImage('two_b.png', 200, 900, 12);
  const two = '<|user|>\nFirst <|image_1|>\nthen <|image_2|>\ncompare them.<|end|>\n<|assistant|>\n';
  const expected = pythonRule(two, [await countOf(a), handCount(200, 900)]);
  const gotTwo = reply(generate(two, [a, b]), 'two images');
  if (gotTwo) check(same(gotTwo.prompt_ids, expected), `two images: prompt ids differ (${firstDifference(gotTwo.prompt_ids, expected)})`);

  // A chat turn with image parts: Phi-3-V's template reads text, so each image part is written as
  // "<|image_N|>\n" (N counting the conversation's images) before the text; no BOS (chat prompts
  // carry the template's own tokens).
  const chatTurn = reply(generate('compare them.', [a, b], ['--chat']), 'chat');
  if (chatTurn) {
    const text = '<|user|>\n<|image_1|>\n<|image_2|>\ncompare them.<|end|>\n<|assistant|>\n';
    const noBos = pythonRule(text, [await countOf(a), handCount(200, 900)]).slice(1);
    check(same(chatTurn.prompt_ids, noBos), `chat: prompt ids differ (${firstDifference(chatTurn.prompt_ids, noBos)})`);
  }

  // The features reach the decoder; prompt log-probabilities skip the soft tokens.
  const c = noiseImage('other.png', 500, 300, 99);
  const base = reply(generate(word, [path.join(work, 'one_500x300.png')], ['--prompt-logprobs']), 'prompt logprobs');
  const other = reply(generate(word, [c]), 'another image');
  if (base && other) {
    check(Math.abs(base.logprobs[0].logprob - other.logprobs[0].logprob) > 1e-6,
      `another image of the same size gives the same first log-probability ${base.logprobs[0].logprob}`);
    const entries = base.prompt_logprobs;
    check(entries.length === base.prompt_ids.length, 'one prompt log-probability entry per prompt id');
    base.prompt_ids.forEach((id, i) => {
      if (i > 0) check((entries[i] === null) === (id < 0), `prompt_logprobs[${i}] for id ${id}: ${JSON.stringify(entries[i])}`);
    });
  }

  // Refusals.
  const refused = (p, images, fragments, what) => {
    const r = generate(p, images);
    check(r.status !== 0, `${what}: accepted`);
    for (const f of fragments) check(r.stderr.includes(f), `${what}: '${f}' not in ${r.stderr}`);
  };
  const one = path.join(work, 'one_500x300.png');
  // (every refusal is also unit-tested: tests/generate/phi3v_expansion_test.cc)
  refused('<|image_2|> <|image_1|>', [one, c], ['<|image_2|>', 'in prompt order'], 'tags out of order');
  refused('<|image_1|> and <|image_2|>', [one], ['2 image tags', '1 image given'], 'more tags than images');
  refused('<|image_0|>', [one], ['<|image_0|>', 'out of range'], 'tag 0');

  if (failures) {
    console.log(`${failures} failure(s)`);
    process.exit(1);
  }
  console.log('phi3v prompt expansion equals transformers.js');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
