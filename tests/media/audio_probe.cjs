// Shared pieces of the audio differential tests (audio_hf_features.cjs,
// e2e/gemma4_audio_import_hf.cjs): encoding generated channels into a file through the
// audio_features_probe (libsndfile / LAME), running a preprocessing.audio program on a file with
// the probe and reading its outputs back, and the comparisons both tests make.
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

// Interleaves `chans` (Float32Arrays of equal length), writes them raw into `work` and has the probe
// encode them as `format` (wav_f32, wav_s16, flac, mp3) at `rate`; returns the encoded file's path.
const extension = { wav_f32: 'wav', wav_s16: 'wav', flac: 'flac', mp3: 'mp3' };
function encodeClip(probe, work, label, chans, rate, format) {
  const n = chans[0].length, channels = chans.length;
  const inter = new Float32Array(n * channels);
  for (let i = 0; i < n; ++i) for (let c = 0; c < channels; ++c) inter[i * channels + c] = chans[c][i];
  const raw = path.join(work, `${label}.f32`), file = path.join(work, `${label}.${extension[format]}`);
  fs.writeFileSync(raw, Buffer.from(inter.buffer));
  execFileSync(probe, ['encode', format, String(rate), String(channels), raw, file]);
  return file;
}

// The program's outputs on `file`, by name: {name, index, shape, integer, data} with data a
// BigInt64Array (integer outputs) or a Float32Array.
function runProgram(probe, programFile, file, outdir) {
  const out = {};
  for (const line of execFileSync(probe, ['run', programFile, file, outdir]).toString().trim().split('\n')) {
    const o = JSON.parse(line);
    const buf = fs.readFileSync(path.join(outdir, `${o.index}.bin`));
    o.data = o.integer ? new BigInt64Array(buf.buffer, buf.byteOffset, buf.length / 8)
                       : new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
    out[o.name] = o;
  }
  return out;
}

function maxAbs(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; ++i) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// A failure counter: check(ok, what) prints FAIL lines; failures() says how many.
function checker() {
  let failures = 0;
  return {
    check(ok, what) { if (!ok) { failures++; console.log(`FAIL ${what}`); } },
    failures: () => failures,
  };
}

module.exports = { encodeClip, runProgram, maxAbs, same, checker };
