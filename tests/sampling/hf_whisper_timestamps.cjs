// Differential check of ogai's Whisper timestamp rules (sampling/timestamp_rules.h) against
// transformers.js' WhisperTimeStampLogitsProcessor on the same logits and generated tokens: the
// ids left finite by the peer equal the ids ogai allows, and ogai's greedy pick is the first
// argmax of the peer's processed row.
// transformers.js 4.3.2 omits two rules of Python transformers' processor (and OpenAI whisper's
// ApplyTimestampRules): timestamps never decreasing, and max_initial_timestamp_index (its check
// sits after a `continue`). Both only write -inf over a range, and Python applies them before the
// probability rule, so this test writes those ranges into the peer's input (the Python order) and
// the peer then decides everything else: notimestamps, pairs, the first token, the probability rule.
//   node hf_whisper_timestamps.cjs PATH/TO/timestamp_probe
const { execFileSync } = require('child_process');
const peers = require('../peers/peers.cjs');
const hf = peers('@huggingface/transformers');

const probe = process.argv[2];
if (!probe) throw new Error('usage: hf_whisper_timestamps.cjs TIMESTAMP_PROBE');

const EOS = 50, NO_TS = 55, T = NO_TS + 1, V = 90, PROMPT = [51, 52, 53];

function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeCase(i) {
  const rand = rng(7000 + i);
  const stampBoost = [0, 2, 4, -3][i % 4];  // how likely timestamps are against text
  const logits = Array.from({ length: V }, (_, id) => Math.fround((rand() - 0.5) * 8 + (id >= T ? stampBoost : 0)));
  // A generated sequence: text and timestamps, with increasing times mostly.
  const generated = [];
  const n = i % 7;
  let time = T + Math.floor(rand() * 5);
  for (let k = 0; k < n; ++k) {
    const r = rand();
    if (r < 0.4) { generated.push(time); time += Math.floor(rand() * 4); }
    else generated.push(Math.floor(rand() * EOS));
  }
  const maxInitial = i % 3 === 0 ? 4 : null;
  return { logits, generated, eos: EOS, no_timestamps: NO_TS, max_initial: maxInitial };
}

// Python transformers' extra ranges, written into the peer's input.
function pythonRanges(c, data) {
  const seq = c.generated;
  const stamps = seq.filter((t) => t >= T);
  if (stamps.length > 0) {
    const last = seq.length >= 1 && seq[seq.length - 1] >= T;
    const penult = seq.length < 2 || seq[seq.length - 2] >= T;
    const floor = last && !penult ? stamps[stamps.length - 1] : stamps[stamps.length - 1] + 1;
    for (let id = T; id < Math.min(floor, V); ++id) data[id] = -Infinity;
  }
  if (seq.length === 0 && c.max_initial !== null) data.fill(-Infinity, T + c.max_initial + 1);
}

function peerRow(c) {
  const data = Float32Array.from(c.logits);
  pythonRanges(c, data);
  const logits = new hf.Tensor('float32', data, [1, V]);
  const proc = new hf.WhisperTimeStampLogitsProcessor(
      { eos_token_id: EOS, no_timestamps_token_id: NO_TS, max_initial_timestamp_index: c.max_initial }, PROMPT);
  const inputIds = [[...PROMPT, ...c.generated].map(BigInt)];
  return Array.from(proc._call(inputIds, logits)[0].data);
}

const cases = Array.from({ length: 120 }, (_, i) => makeCase(i));
const ours = JSON.parse(execFileSync(probe, { input: JSON.stringify(cases) }).toString());
let failures = 0, textForced = 0;
for (let i = 0; i < cases.length; ++i) {
  const peer = peerRow(cases[i]);
  const finite = peer.map((x, id) => (x > -Infinity ? id : -1)).filter((id) => id >= 0);
  if (JSON.stringify(finite) !== JSON.stringify(ours[i].allowed)) {
    ++failures;
    console.error(`FAIL case ${i} (generated ${cases[i].generated}): peer allows ${finite}, ogai ${ours[i].allowed}`);
  }
  let best = 0;
  for (let id = 1; id < V; ++id) if (peer[id] > peer[best]) best = id;
  if (ours[i].greedy !== best) {
    ++failures;
    console.error(`FAIL case ${i}: greedy ogai ${ours[i].greedy}, peer ${best}`);
  }
  if (cases[i].generated.length > 0 && finite.every((id) => id >= T)) ++textForced;
}
console.log(`${cases.length} cases, ${textForced} with text forbidden after the start; ${failures} failures`);
if (textForced === 0) { console.error('FAIL no case exercised the probability rule'); process.exit(1); }
process.exit(failures ? 1 : 0);
