// The imported Gemma-4 audio program against Hugging Face (issue 35, items 1 and 2): ORT GenAI's
// audio_feature_extraction.json (the shared gemma4 one, and variants of its Gemma4LogMel
// attributes: pre-emphasis, fft_overdrive, 64 bins over 125-7600 Hz, another floor; an 8 kHz
// analysis with 25 ms frames) is imported with `ogai import` inside the computing stand-in
// folder (tools/genai/multimodal.py mm-gemma4-audio, CTest fixture `importer_multimodal_folders`),
// the document's preprocessing.audio is run by audio_features_probe on clips generated here, and
// transformers.js' Gemma4AudioFeatureExtractor, configured from the same attributes by ONNX
// Runtime GenAI's mapping (frame and hop in samples, n_fft the next power of two, doubled with
// fft_overdrive), is fed the same mono samples. Required: equal shapes, features within 1e-5,
// equal frame masks, and the soft-token count of the valid frames (two kernel-3 stride-2
// convolutions, at most 750; Gemma4Processor's own count where its 20 ms / 10 ms framing applies).
//   node gemma4_audio_import_hf.cjs OGAI_EXE AUDIO_FEATURES_PROBE
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const peers = require('../peers/peers.cjs');
const { encodeClip, runProgram: probeRun, maxAbs, same, checker } = require('../media/audio_probe.cjs');
const hf = peers('@huggingface/transformers');

const [ogai, probe] = process.argv.slice(2);
if (!ogai || !probe) throw new Error('usage: gemma4_audio_import_hf.cjs OGAI_EXE AUDIO_FEATURES_PROBE');
const binary = process.env.OGAI_BINARY_DIR || '.';
const standIn = path.join(binary, 'importer_folders', 'multimodal', 'mm-gemma4-audio');
const work = path.join(binary, 'test_importer', 'gemma4_audio_hf');
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const shared = JSON.parse(fs.readFileSync(path.join(process.env.OGAI_SHARED_DIR, 'ortgenai', 'gemma4',
  'audio_feature_extraction.json'), 'utf8'));

const { check, failures } = checker();

// ---- variants of the extraction config -------------------------------------------------------
function variant(logMel, decoderAttrs) {
  const e = JSON.parse(JSON.stringify(shared));
  Object.assign(e.feature_extraction.sequence[1].operation.attrs, logMel);
  if (decoderAttrs) e.feature_extraction.sequence[0].operation.attrs = decoderAttrs;
  return e;
}
const variants = {
  shared: shared,
  preemphasis_overdrive: variant({ preemphasis: 0.97, fft_overdrive: 1, feature_size: 64, min_frequency: 125.0,
    max_frequency: 7600.0, mel_floor: 1e-5 }),
  rate8k_frame25ms: variant({ sampling_rate: 8000, max_frequency: 4000.0, frame_length_ms: 25.0, hop_length_ms: 12.5 },
    { target_sample_rate: 8000 }),
};

// A folder linking the stand-in's files but the extraction config, imported; its program.
function importedProgram(name, extraction) {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  for (const file of fs.readdirSync(standIn))
    if (file !== 'audio_feature_extraction.json') fs.linkSync(fs.realpathSync(path.join(standIn, file)), path.join(dir, file));
  fs.writeFileSync(path.join(dir, 'audio_feature_extraction.json'), JSON.stringify(extraction, null, 2));
  const yamlText = execFileSync(ogai, ['import', dir], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const json = execFileSync('/usr/bin/python3', ['-c',
    'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)["preprocessing"]["audio"]))'],
  { input: yamlText }).toString();
  const file = path.join(work, `${name}.program.json`);
  fs.writeFileSync(file, json);
  return file;
}

// Hugging Face's extractor from the same attributes (ONNX Runtime GenAI's and the docs' mapping).
function extractorFor(extraction) {
  const a = { feature_size: 128, sampling_rate: 16000, frame_length_ms: 20.0, hop_length_ms: 10.0, min_frequency: 0.0,
    max_frequency: 8000.0, preemphasis: 0.0, fft_overdrive: 0, mel_floor: 0.001,
    ...extraction.feature_extraction.sequence[1].operation.attrs };
  const frame = Math.round(a.sampling_rate * a.frame_length_ms / 1000);
  const hop = Math.round(a.sampling_rate * a.hop_length_ms / 1000);
  let fft = 1;
  while (fft < frame) fft *= 2;
  if (a.fft_overdrive) fft *= 2;
  const fe = new hf.Gemma4AudioFeatureExtractor({ feature_size: a.feature_size, sampling_rate: a.sampling_rate,
    frame_length: frame, hop_length: hop, fft_length: fft, min_frequency: a.min_frequency, max_frequency: a.max_frequency,
    preemphasis: a.preemphasis, preemphasis_htk_flavor: true, mel_floor: a.mel_floor, padding_value: 0.0 });
  return { fe, rate: a.sampling_rate, standardFraming: frame === Math.round(a.sampling_rate * 0.02) &&
    hop === Math.round(a.sampling_rate * 0.01) };
}

// ---- clips -----------------------------------------------------------------------------------
function signal(kind, rate, n, channel) {
  const x = new Float32Array(n);
  let seed = 99 + channel * 7 + rate;
  const r = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let i = 0; i < n; ++i) {
    const t = i / rate;
    if (kind === 'sine') x[i] = 0.5 * Math.sin(2 * Math.PI * 440 * (channel + 1) * t);
    else if (kind === 'noise') x[i] = 0.3 * (2 * r() - 1);
    else if (kind === 'silence') x[i] = 0;
    else if (kind === 'chirp') x[i] = 0.6 * Math.sin(2 * Math.PI * (80 * t + (rate / 2 - 400) * t * t / (2 * n / rate)));
    else if (kind === 'am') x[i] = 0.5 * (0.5 + 0.5 * Math.sin(2 * Math.PI * 3 * t)) * Math.sin(2 * Math.PI * 220 * t);
  }
  return x;
}

// The clip as a float WAV at `rate`, and the mono samples the program featurizes (the channel mean).
function clip(label, kind, rate, channels, seconds) {
  const n = Math.round(rate * seconds);
  const chans = Array.from({ length: channels }, (_, c) => signal(kind, rate, n, c));
  const mono = new Float32Array(n);
  for (let i = 0; i < n; ++i) {
    let sum = 0;
    for (let c = 0; c < channels; ++c) sum += chans[c][i];
    mono[i] = sum / channels;
  }
  const file = encodeClip(probe, work, label, chans, rate, 'wav_f32');
  return { file, mono };
}

const runProgram = (programFile, file, outdir) => probeRun(probe, programFile, file, outdir);
function tokensOf(validFrames) {
  let t = validFrames;
  for (let i = 0; i < 2; ++i) t = t <= 0 ? 0 : Math.floor((t + 2 - 3) / 2) + 1;
  return Math.min(t, 750);
}

const cases = [
  ['shared', 'sine', 1, 1.0], ['shared', 'noise', 2, 2.3], ['shared', 'silence', 1, 0.5], ['shared', 'chirp', 1, 0.1],
  ['shared', 'am', 1, 31.0], ['preemphasis_overdrive', 'chirp', 1, 1.5], ['preemphasis_overdrive', 'noise', 2, 0.77],
  ['rate8k_frame25ms', 'sine', 1, 1.2], ['rate8k_frame25ms', 'chirp', 2, 0.33],
];

async function main() {
  const programs = {}, extractors = {};
  for (const [name, e] of Object.entries(variants)) {
    programs[name] = importedProgram(name, e);
    extractors[name] = extractorFor(e);
  }
  const gemmaTokens = (n, rate) =>
    hf.Gemma4Processor.prototype._compute_audio_num_tokens.call({ audio_seq_length: 750 }, n, rate);
  for (const [i, [name, kind, channels, seconds]] of cases.entries()) {
    const { fe, rate, standardFraming } = extractors[name];
    const label = `case${i}_${name}_${kind}_${channels}ch_${seconds}s`;
    const src = clip(label, kind, rate, channels, seconds);
    const ours = runProgram(programs[name], src.file, path.join(work, `${label}.out`));
    const theirs = await fe(src.mono);
    const features = ours['audio.audio_embeds'];
    check(same(features.shape, theirs.input_features.dims),
          `${label}: shape ${JSON.stringify(features.shape)} vs HF ${JSON.stringify(theirs.input_features.dims)}`);
    const d = maxAbs(features.data, theirs.input_features.data);
    check(d <= 1e-5, `${label}: max |ogai - HF| = ${d} (> 1e-5)`);
    const mask = Array.from(ours['audio.input_features_mask'].data, Number);
    const hfMask = Array.from(theirs.input_features_mask.data, Number);
    check(same(mask, hfMask), `${label}: mask ${mask.filter(Boolean).length}/${mask.length} valid vs HF ` +
          `${hfMask.filter(Boolean).length}/${hfMask.length}`);
    const tokens = Number(ours['audio.audio_sizes'].data[0]);
    const expected = tokensOf(hfMask.filter(Boolean).length);
    check(tokens === expected, `${label}: ${tokens} soft tokens, ${expected} from HF's valid frames`);
    if (standardFraming) {
      const processor = gemmaTokens(src.mono.length, rate);
      check(tokens === processor, `${label}: ${tokens} soft tokens, Gemma4Processor ${processor}`);
    }
    console.log(`${label}: shape ${JSON.stringify(features.shape)}, ${tokens} tokens, max |diff| ${d.toExponential(2)}`);
  }
  if (failures()) { console.log(`${failures()} check(s) failed`); process.exit(1); }
  console.log('imported Gemma-4 audio programs equal Hugging Face');
}

main().catch((e) => { console.error(e); process.exit(1); });
