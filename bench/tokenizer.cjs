// Tokenizer benchmark, one thread, one corpus, side by side in one run: GPT-2 encode throughput
// of ogai vs tiktoken (its "gpt2" encoding, WASM) vs @huggingface/tokenizers (JS), and the load
// time of a generated 250k-token tokenizer.json. Prints the ratios.
//   bench/tokenizer.sh   (builds, then runs this with the peers available)
//   node bench/tokenizer.cjs TOKENIZER_BENCH GPT2_TOKENIZER_JSON WORK_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const peers = require('../tests/peers/peers.cjs');
const { corpus } = require('../tests/tokenizer/corpus.cjs');

const [benchBin, gpt2Json, work] = process.argv.slice(2);
fs.mkdirSync(work, { recursive: true });

// About 2 MB of documents: the test corpus (many scripts, code, emoji) plus English prose, in
// documents of a few kilobytes.
function documents() {
  const prose = 'The history of the city goes back to the Roman era, when a small settlement grew up around the ' +
    'river crossing. Over the centuries it became a market town, and by 1850 its population had reached 12,000. ' +
    "Today it's known for its university, its museums and a thriving software industry. ";
  const docs = [];
  for (let seed = 1; docs.join('').length < 2_000_000; ++seed) {
    const texts = corpus([], seed);
    for (let i = 0; i < texts.length; i += 8) docs.push(texts.slice(i, i + 8).join(' ') + ' ' + prose.repeat(4));
  }
  return docs;
}

function best(n, f) {
  let t = Infinity;
  let out;
  for (let i = 0; i < n; ++i) {
    const s = process.hrtime.bigint();
    out = f();
    t = Math.min(t, Number(process.hrtime.bigint() - s) / 1e9);
  }
  return [t, out];
}

function checksum(idLists) {
  let c = 0n;
  for (const ids of idLists) for (const id of ids) c = (c * 31n + BigInt(id)) & 0xFFFFFFFFFFFFFFFFn;
  return c.toString();
}

const docs = documents();
const corpusFile = path.join(work, 'corpus.json');
fs.writeFileSync(corpusFile, JSON.stringify(docs));
const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d), 0);

const ogai = JSON.parse(execFileSync(benchBin, [gpt2Json, corpusFile, path.join(work, 'big_tokenizer.json')], { encoding: 'utf8' }));

const tiktoken = peers('tiktoken');
const enc = tiktoken.get_encoding('gpt2');
const [tikS, tikIds] = best(3, () => docs.map((d) => enc.encode(d)));

const { Tokenizer } = peers('@huggingface/tokenizers');
const hf = new Tokenizer(JSON.parse(fs.readFileSync(gpt2Json, 'utf8')), {});
const [jsS, jsIds] = best(2, () => docs.map((d) => hf.encode(d, { add_special_tokens: false }).ids));

const mbs = (s) => (bytes / s / 1e6).toFixed(2);
console.log(`corpus: ${docs.length} documents, ${(bytes / 1e6).toFixed(2)} MB, ${ogai.tokens} GPT-2 tokens`);
console.log(`ogai                     ${mbs(ogai.encode_s)} MB/s  (load ${(ogai.load_s * 1000).toFixed(1)} ms)`);
console.log(`tiktoken (gpt2, wasm)    ${mbs(tikS)} MB/s  ids ${checksum(tikIds.map((x) => Array.from(x))) === ogai.checksum ? 'identical' : 'DIFFER'}`);
console.log(`@huggingface/tokenizers  ${mbs(jsS)} MB/s  ids ${checksum(jsIds) === ogai.checksum ? 'identical' : 'DIFFER'}`);
console.log(`ratio ogai / tiktoken:                ${(tikS / ogai.encode_s).toFixed(2)}x  (goal >= 1x)`);
console.log(`ratio ogai / @huggingface/tokenizers: ${(jsS / ogai.encode_s).toFixed(2)}x  (goal >= 5x)`);
console.log(`load of a 250k-token ${(ogai.big_bytes / 1e6).toFixed(1)} MB tokenizer.json: ${(ogai.big_load_s * 1000).toFixed(1)} ms  (goal < 300 ms)`);
enc.free();
