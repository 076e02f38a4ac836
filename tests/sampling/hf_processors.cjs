// Differential check of ogai's sampling chain against @huggingface/transformers (transformers.js)
// on the same logits and token history:
//   - RepetitionPenaltyLogitsProcessor then TemperatureLogitsWarper (the order Python HF and
//     transformers.js both use): with the parameters rounded to float32 first, the processed
//     logits are bit-identical. With the parameters as JS doubles they differ by at most one
//     rounding per operation (2 ulp): transformers.js computes x * penalty and x / T in double
//     and rounds to float32, while ogai (like PyTorch on a float32 tensor and a Python scalar)
//     computes in float32 with the parameter in float32;
//   - greedy choice: the first index of the maximum of the peer's processed logits (the rule of
//     transformers.js' GreedySampler and of torch.argmax) equals ogai's greedy token;
//   - top-k: the peer's topk + softmax (its MultinomialSampler) equals ogai's distribution.
//     Difference found: with ties at the k-th value transformers.js keeps exactly k tokens, while
//     Python HF (TopKLogitsWarper removes only scores < the k-th) and ogai keep every tied one;
//     there the check is that ogai keeps the peer's tokens plus exactly the tied ones.
// transformers.js 4.3.1 has no top-p, min-p or typical-p: TopPLogitsWarper/TopKLogitsWarper exist
// but implement no _call, and generate() never adds them; those are checked against Python HF's
// formulas in the C++ tests instead.
//   node hf_processors.cjs PATH/TO/sampling_probe
const { execFileSync } = require('child_process');
const peers = require('../peers/peers.cjs');
const hf = peers('@huggingface/transformers');

const probe = process.argv[2];
if (!probe) throw new Error('usage: hf_processors.cjs SAMPLING_PROBE');

// Deterministic pseudo-random numbers (mulberry32) for the cases.
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeCase(i) {
  const rand = rng(1000 + i);
  const vocab = [50, 300, 1000][i % 3];
  const logits = Array.from({ length: vocab }, () => Math.fround((rand() - 0.5) * 12));
  if (i % 4 === 0) logits[Math.floor(rand() * vocab)] = null; // a -inf logit
  if (i % 5 === 0) { logits[3] = 7.5; logits[9] = 7.5; } // a tie at the top
  const ids = (n) => Array.from({ length: n }, () => Math.floor(rand() * Math.min(vocab, 40)));
  const params = {
    repetition_penalty: [1.0, 1.3, 0.7, 2.0][i % 4],
    temperature: [1.0, 0.7, 1.6][i % 3],
    top_k: [0, 5, 20, 1][i % 4],
  };
  return { logits, prompt: ids(12), generated: ids(6), params };
}

function peerProcessed(c, round) {
  const r = (x) => (round ? Math.fround(x) : x);
  const data = Float32Array.from(c.logits, (x) => (x === null ? -Infinity : x));
  const logits = new hf.Tensor('float32', data, [1, data.length]);
  const list = new hf.LogitsProcessorList();
  if (c.params.repetition_penalty !== 1.0) list.push(new hf.RepetitionPenaltyLogitsProcessor(r(c.params.repetition_penalty)));
  if (c.params.temperature !== 1.0) list.push(new hf.TemperatureLogitsWarper(r(c.params.temperature)));
  const inputIds = [[...c.prompt, ...c.generated].map(BigInt)];
  return list(inputIds, logits);
}

function firstArgmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; ++i) if (values[i] > values[best]) best = i;
  return best;
}

const ulp = (x) => Math.abs(x) * 2 ** -23 + 1e-45;
const value = (x) => (x === null ? -Infinity : x);

async function main() {
  const cases = Array.from({ length: 36 }, (_, i) => makeCase(i));
  const ours = JSON.parse(execFileSync(probe, { input: JSON.stringify(cases) }).toString());
  let failures = 0, inexact = 0, compared = 0, tieCases = 0;
  const fail = (msg) => { ++failures; console.error('FAIL ' + msg); };
  for (let i = 0; i < cases.length; ++i) {
    const c = cases[i], o = ours[i];
    const exact = Array.from(peerProcessed(c, true).data);
    const processed = peerProcessed(c, false);
    const peer = Array.from(processed.data);
    for (let t = 0; t < peer.length; ++t) {
      const mine = value(o.processed[t]);
      ++compared;
      if (mine !== exact[t]) fail(`case ${i} token ${t}: ogai ${mine}, peer with float32 parameters ${exact[t]}`);
      if (mine === peer[t]) continue;
      ++inexact;
      if (!(Math.abs(mine - peer[t]) <= 2 * ulp(peer[t]))) fail(`case ${i} token ${t}: ogai ${mine} peer ${peer[t]}`);
    }
    // Greedy ignores temperature, which is argmax-preserving; compare on the peer's processed row.
    if (o.greedy !== firstArgmax(peer)) fail(`case ${i}: greedy ogai ${o.greedy} peer ${firstArgmax(peer)}`);
    if (c.params.top_k > 0) {
      const [values, indices] = await hf.topk(processed, c.params.top_k);
      const probs = hf.softmax(Array.from(values.data));
      const mine = new Map(o.distribution.map(([id, p]) => [id, p]));
      const kth = values.data[values.data.length - 1];
      const tied = peer.filter((x) => x === kth).length;
      const tiedInside = Array.from(values.data).filter((x) => x === kth).length;
      if (tied > tiedInside) {
        // The peer cut a tie group; ogai keeps the whole group (Python HF's rule).
        ++tieCases;
        const expected = probs.length + (tied - tiedInside);
        if (mine.size !== expected) fail(`case ${i}: ogai keeps ${mine.size}, expected ${expected} with ties`);
        Array.from(indices.data).forEach((id) => {
          if (!mine.has(Number(id))) fail(`case ${i}: ogai dropped the peer's top-k token ${id}`);
        });
        continue;
      }
      if (mine.size !== probs.length) fail(`case ${i}: ogai keeps ${mine.size}, peer ${probs.length}`);
      Array.from(indices.data).forEach((id, j) => {
        const p = mine.get(Number(id));
        if (p === undefined || Math.abs(p - probs[j]) > 1e-6) fail(`case ${i}: top-k token ${id} ogai ${p} peer ${probs[j]}`);
      });
    }
  }
  console.log(`${cases.length} cases, ${compared} processed logits bit-identical to the peer with float32 ` +
              `parameters; ${inexact} differ within 2 ulp from the peer with double parameters; ` +
              `${tieCases} top-k cases with a tie the peer cuts; ${failures} failures`);
  process.exit(failures ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(1); });
