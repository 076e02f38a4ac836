// Differential test of ogai's audio feature extraction (src/media/audio, a v1
// preprocessing.audio program) against Hugging Face's feature extractors in transformers.js:
// WhisperFeatureExtractor (80 and 128 mel bins) and Gemma4AudioFeatureExtractor (plus the
// soft-token count of Gemma4Processor). Audio is generated here (sines, chirps, noise, silence,
// an amplitude-modulated tone; 8 / 16 / 22.05 / 44.1 / 48 kHz; mono and stereo; WAV float, WAV
// 16-bit, FLAC, MP3; 0.1 s to 32 s), encoded by the probe through libsndfile into the build
// folder and run through the program. The programs emit, beside the features, the mono 16 kHz
// waveform they featurized; the oracle is fed that waveform (the feature extractors take mono
// 16 kHz samples only), so the features are compared op for op:
//   - features: max |ogai - HF| <= 1e-5 (absolute, on the final normalized log-mel values);
//   - Gemma-4's frame mask and soft-token count: equal; shapes: equal.
// The waveform itself is checked too: exact for 16 kHz float WAV, the channel mean for stereo,
// within 16-bit quantization for WAV 16-bit / FLAC, round(n * 16000 / rate) samples when
// resampled. Resampling (libsoxr HQ) is compared against SoX's `rate -h` effect (Debian's sox,
// the resampler libsoxr was derived from), away from the clip's edges (docs/media.md says why
// and the measured differences).
//   node audio_hf_features.cjs PATH/TO/audio_features_probe
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const peers = require('../peers/peers.cjs');
const { encodeClip, runProgram: probeRun, maxAbs, same, checker } = require('./audio_probe.cjs');
const hf = peers('@huggingface/transformers');

const probe = process.argv[2];
if (!probe) throw new Error('usage: audio_hf_features.cjs AUDIO_FEATURES_PROBE');
const work = path.join(process.env.OGAI_BINARY_DIR || '.', 'test_media', 'audio_hf_features');
fs.mkdirSync(work, { recursive: true });

// ---- programs (v1 preprocessing.audio) -------------------------------------------------------
function whisperProgram(mels) {
  return {
    transforms: [
      { op: 'decode' },
      { op: 'downmix', channels: 1 },
      { op: 'resample', sample_rate: 16000, outputs: ['wave16k'] },
      { op: 'pad', mode: 'fixed_window', target_length: 480000, pad_value: 0.0 },
      { op: 'log_mel', num_mel_bins: mels, n_fft: 400, hop_length: 160, window: 'hann', mel_scale: 'slaney',
        mel_norm: 'slaney', f_min: 0, f_max: 8000, log: 'log10', log_floor: 1e-10 },
      { op: 'normalize', mode: 'whisper_log_mel', outputs: ['features'] },
    ],
    outputs: [
      { name: 'input_features', source: 'features', content: 'audio_features', dtype: 'float32' },
      { name: 'waveform', source: 'wave16k', content: 'waveform', dtype: 'float32' },
    ],
  };
}

function gemma4Program(preemphasis) {
  return {
    transforms: [
      { op: 'decode' },
      { op: 'downmix', channels: 1 },
      { op: 'resample', sample_rate: 16000, outputs: ['wave16k'] },
      { op: 'trim', target_length: 480000 },
      { op: 'pad', multiple_of: 128, pad_value: 0.0 },
      { op: 'log_mel', num_mel_bins: 128, n_fft: 512, frame_length: 320, frame_extent: 321, hop_length: 160,
        window: 'hann', center: true, pad_mode: 'semicausal', drop_last_frame: false,
        preemphasis, power: 1.0, mel_scale: 'htk', mel_norm: 'none', f_min: 0, f_max: 8000, log: 'ln',
        log_floor: 0.001, log_floor_mode: 'add', frame_validity: 'extent_end' },
      { op: 'transpose', outputs: ['features'] },
      { op: 'emit_validity_mask', inputs: ['features'], outputs: ['mask'] },
      { op: 'emit_token_count', inputs: ['features'], outputs: ['tokens'], max_tokens: 750,
        convolutions: [{ kernel: 3, stride: 2, padding: 1 }, { kernel: 3, stride: 2, padding: 1 }] },
    ],
    outputs: [
      { name: 'input_features', source: 'features', content: 'audio_features', dtype: 'float32', pad_value: 0.0 },
      { name: 'input_features_mask', source: 'mask', content: 'validity_mask', dtype: 'bool' },
      { name: 'audio_soft_tokens', source: 'tokens', content: 'token_count', dtype: 'int64' },
      { name: 'waveform', source: 'wave16k', content: 'waveform', dtype: 'float32' },
    ],
  };
}

// ---- oracles ---------------------------------------------------------------------------------
const whisperConfig = (mels) => ({ feature_size: mels, sampling_rate: 16000, hop_length: 160, n_fft: 400,
  chunk_length: 30, n_samples: 480000, nb_max_frames: 3000, padding_value: 0.0 });
const gemma4Config = (preemphasis) => ({ feature_size: 128, sampling_rate: 16000, frame_length: 320, hop_length: 160,
  fft_length: 512, min_frequency: 0.0, max_frequency: 8000.0, preemphasis, preemphasis_htk_flavor: true,
  mel_floor: 0.001, padding_value: 0.0 });
const extractors = {
  whisper80: { program: whisperProgram(80), fe: new hf.WhisperFeatureExtractor(whisperConfig(80)) },
  whisper128: { program: whisperProgram(128), fe: new hf.WhisperFeatureExtractor(whisperConfig(128)) },
  gemma4: { program: gemma4Program(0.0), fe: new hf.Gemma4AudioFeatureExtractor(gemma4Config(0.0)) },
  gemma4_preemphasis: { program: gemma4Program(0.97), fe: new hf.Gemma4AudioFeatureExtractor(gemma4Config(0.97)) },
};
for (const [name, e] of Object.entries(extractors)) {
  e.file = path.join(work, `${name}.program.json`);
  fs.writeFileSync(e.file, JSON.stringify(e.program));
}
const gemmaTokens = (n) => hf.Gemma4Processor.prototype._compute_audio_num_tokens.call({ audio_seq_length: 750 }, n, 16000);

// ---- signals ---------------------------------------------------------------------------------
function rng(seed) {  // mulberry32
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function signal(kind, rate, n, channel) {
  const x = new Float32Array(n);
  const r = rng(17 + channel * 101 + rate);
  for (let i = 0; i < n; ++i) {
    const t = i / rate;
    switch (kind) {
      case 'sine': x[i] = 0.5 * Math.sin(2 * Math.PI * (440 * (channel + 1)) * t); break;
      case 'chirp': { const f0 = 60, f1 = Math.min(7500, rate / 2 - 200), d = n / rate;
        x[i] = 0.6 * Math.sin(2 * Math.PI * (f0 * t + (f1 - f0) * t * t / (2 * d))); break; }
      case 'noise': x[i] = 0.3 * (r() * 2 - 1); break;
      case 'silence': x[i] = 0; break;
      case 'mix': x[i] = 0.4 * Math.sin(2 * Math.PI * 1000 * t) + 0.05 * (r() * 2 - 1); break;
      case 'am': x[i] = 0.5 * (0.5 + 0.5 * Math.sin(2 * Math.PI * 3 * t)) * Math.sin(2 * Math.PI * 220 * t); break;
      default: throw new Error(kind);
    }
  }
  return x;
}

// ---- cases -----------------------------------------------------------------------------------
const cases = [
  ['whisper80', 'sine', 16000, 1, 1.0, 'wav_f32'],
  ['whisper80', 'chirp', 16000, 1, 5.0, 'wav_f32'],
  ['whisper80', 'noise', 16000, 1, 0.1, 'wav_s16'],
  ['whisper80', 'silence', 16000, 1, 2.0, 'wav_f32'],
  ['whisper80', 'mix', 44100, 2, 3.0, 'flac'],
  ['whisper80', 'chirp', 8000, 1, 2.0, 'wav_f32'],
  ['whisper80', 'noise', 48000, 2, 1.5, 'mp3'],
  ['whisper80', 'am', 22050, 1, 31.0, 'wav_s16'],
  ['whisper80', 'sine', 16000, 2, 0.37, 'wav_f32'],
  ['whisper128', 'chirp', 16000, 1, 10.0, 'wav_f32'],
  ['whisper128', 'noise', 48000, 2, 2.0, 'flac'],
  ['whisper128', 'am', 16000, 1, 30.0, 'wav_f32'],
  ['gemma4', 'sine', 16000, 1, 1.0, 'wav_f32'],
  ['gemma4', 'chirp', 16000, 1, 0.1, 'wav_f32'],
  ['gemma4', 'noise', 16000, 1, 7.3, 'wav_s16'],
  ['gemma4', 'silence', 16000, 1, 1.0, 'wav_f32'],
  ['gemma4', 'mix', 44100, 2, 2.5, 'flac'],
  ['gemma4', 'chirp', 8000, 1, 3.0, 'mp3'],
  ['gemma4', 'am', 22050, 1, 32.0, 'wav_s16'],
  ['gemma4', 'chirp', 48000, 1, 0.37, 'wav_f32'],
  ['gemma4', 'sine', 16000, 2, 30.0, 'wav_f32'],
  ['gemma4_preemphasis', 'chirp', 16000, 1, 2.0, 'wav_f32'],
  ['gemma4_preemphasis', 'mix', 44100, 1, 1.3, 'flac'],
];

function encode(name, kind, rate, channels, seconds, format) {
  const n = Math.round(rate * seconds);
  const chans = Array.from({ length: channels }, (_, c) => signal(kind, rate, n, c));
  return { file: encodeClip(probe, work, name, chans, rate, format), chans, n };
}
const runProgram = (programFile, file, outdir) => probeRun(probe, programFile, file, outdir);
const { check, failures } = checker();

// The waveform the program featurized: decode, channel mean, libsoxr when resampled.
function checkWaveform(label, wave, src, rate, format) {
  const n = src.n, expectedLength = rate === 16000 ? n : Math.round(n * 16000 / rate);
  check(wave.length === expectedLength, `${label}: waveform has ${wave.length} samples, expected ${expectedLength}`);
  if (rate !== 16000 || format === 'mp3') return;
  const mean = new Float32Array(n);
  for (let i = 0; i < n; ++i) { let s = 0; for (const ch of src.chans) s += ch[i]; mean[i] = s / src.chans.length; }
  const tol = format === 'wav_f32' ? 1e-7 : 1.0 / 32768 + 1e-7;
  const d = maxAbs(wave, mean);
  check(d <= tol, `${label}: waveform differs from the source's channel mean by ${d} (> ${tol})`);
}

async function oracle(name, wave) {
  const r = await extractors[name].fe(wave);
  return { features: r.input_features, mask: r.input_features_mask };
}

async function main() {
  let worst = {};
  for (const [i, [name, kind, rate, channels, seconds, format]] of cases.entries()) {
    const label = `${i}:${name}/${kind}/${rate}Hz/${channels}ch/${seconds}s/${format}`;
    const src = encode(`case${i}`, kind, rate, channels, seconds, format);
    const out = runProgram(extractors[name].file, src.file, path.join(work, `case${i}.out`));
    const wave = out.waveform.data;
    checkWaveform(label, wave, src, rate, format);
    const hfOut = await oracle(name, Float32Array.from(wave));
    const ours = out.input_features;
    check(same(ours.shape, hfOut.features.dims), `${label}: features shape ${JSON.stringify(ours.shape)} vs HF ${JSON.stringify(hfOut.features.dims)}`);
    const d = maxAbs(ours.data, hfOut.features.data);
    worst[name] = Math.max(worst[name] || 0, d);
    check(d <= 1e-5, `${label}: max |ogai - HF| = ${d} (> 1e-5)`);
    if (name.startsWith('gemma4')) {
      const mask = Array.from(out.input_features_mask.data, Number), hfMask = Array.from(hfOut.mask.data, Number);
      check(same(out.input_features_mask.shape, hfOut.mask.dims) && same(mask, hfMask),
            `${label}: mask (${mask.filter(Boolean).length} of ${mask.length} valid) vs HF (${hfMask.filter(Boolean).length} of ${hfMask.length})`);
      const tokens = Number(out.audio_soft_tokens.data[0]), hfTokens = gemmaTokens(wave.length);
      check(tokens === hfTokens, `${label}: ${tokens} soft tokens, HF ${hfTokens}`);
    }
    console.log(`${label}: shape ${JSON.stringify(ours.shape)}, max |diff| ${d.toExponential(2)}`);
  }
  console.log('worst max |ogai - HF| per extractor:', JSON.stringify(worst));
  checkSox();
  if (failures()) { console.log(`${failures()} check(s) failed`); process.exit(1); }
  console.log('all audio feature checks passed');
}

// ---- resampling against SoX ------------------------------------------------------------------
// libsoxr HQ and SoX's `rate -h` (very close designs: libsoxr came out of SoX's rate effect):
// the resampled samples agree to a small fraction of full scale, and the Whisper features
// computed from either stay within a bound far below what changes a transcription.
function checkSox() {
  for (const [rate, kind] of [[44100, 'mix'], [8000, 'chirp'], [48000, 'noise'], [22050, 'am']]) {
    const label = `sox/${rate}Hz/${kind}`;
    const src = encode(`sox${rate}`, kind, rate, 1, 2.0, 'wav_f32');
    const soxRaw = path.join(work, `sox${rate}.16k.f32`);
    execFileSync('sox', ['-D', src.file, '-t', 'raw', '-e', 'floating-point', '-b', '32', soxRaw, 'rate', '-h', '16000']);
    const b = fs.readFileSync(soxRaw);
    const sox = new Float32Array(b.buffer, b.byteOffset, b.length / 4);
    const out = runProgram(extractors.whisper80.file, src.file, path.join(work, `sox${rate}.out`));
    const ours = out.waveform.data;
    const n = Math.min(ours.length, sox.length);
    check(Math.abs(ours.length - sox.length) <= 1, `${label}: ${ours.length} samples vs SoX ${sox.length}`);
    const d = maxAbs(ours.subarray(64, n - 64), sox.subarray(64, n - 64));
    check(d <= 2e-3, `${label}: max |soxr - SoX| = ${d} away from the edges (> 2e-3)`);
    console.log(`${label}: ${ours.length} samples, max |libsoxr - SoX rate -h| (edges excluded) ${d.toExponential(2)}`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
