"""End-to-end check of the onnx-genai.audio-preprocess@1 adapter through `ogai run`: a package
generated here (a preprocessing.audio program whose adapter output is emitted directly) gets a
WAV file with `--input request.audio=@FILE`; its log-mel features are compared with NumPy
computing Whisper's log-mel from the same samples (numpy.fft, float64); a resampled stereo clip
gives the window's shape and valid-frame count; hostile files are refused naming the input.
Usage: audio_preprocess_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import os
import sys
import unittest

import numpy as np

from cli_support import run, temp_dir
from wav_file import write_pcm16

OGAI = sys.argv.pop(1)

PACKAGE = """schema_version: v1
preprocessing:
  audio:
    transforms:
      - {op: decode, outputs: [samples]}
      - {op: resample, inputs: [samples], outputs: [resampled], sample_rate: 16000}
      - {op: pad, inputs: [resampled], outputs: [windowed], mode: fixed_window, target_length: 16000, pad_value: 0.0}
      - {op: log_mel, inputs: [windowed], outputs: [mel], num_mel_bins: 80, n_fft: 400, hop_length: 160,
         window: hann, mel_scale: slaney, sample_rate: 16000}
      - {op: normalize, inputs: [mel], outputs: [features], mode: whisper_log_mel}
      - {op: emit_valid_frames, inputs: [windowed], outputs: [valid_frames]}
    outputs:
      - {source: features, name: audio.input_features, content: audio_features, dtype: float32,
         contract: {dtype: float32, rank: 3, shape: [batch, 80, frames], batch_layout: {kind: request_aligned, axis: 0}}}
      - {source: valid_frames, name: audio.valid_frames, content: valid_frames, dtype: int64,
         contract: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}}
pipeline:
  workflow:
    manifest:
      adapter_abis: {onnx-genai.audio-preprocess: '1'}
      capabilities: [workflow_ssa, typed_emit]
    inputs:
      request.audio:
        contract: {dtype: uint8, rank: 1, shape: [encoded_bytes]}
        role: {kind: runtime, version: '1.0', role: media}
        source: {kind: request}
    outputs:
      features:
        contract: {dtype: float32, rank: 3, shape: [batch, 80, frames], batch_layout: {kind: request_aligned, axis: 0}}
        role: tensor
        stage: pre_adapter
      valid_frames:
        contract: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}
        role: tensor
        stage: pre_adapter
    components:
      audio_preprocess:
        implementation: {kind: adapter, abi: onnx-genai.audio-preprocess, version: '1'}
        ports:
          inputs:
            encoded: {dtype: uint8, rank: 1, shape: [encoded_bytes]}
          outputs:
            input_features: {dtype: float32, rank: 3, shape: [batch, 80, frames], batch_layout: {kind: request_aligned, axis: 0}}
            valid_frames: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}
    steps:
      - kind: invoke
        component: audio_preprocess
        inputs: {encoded: request.audio}
        outputs: {input_features: audio.input_features, valid_frames: audio.valid_frames}
      - {kind: emit, value: audio.input_features, output: features, mode: replace}
      - {kind: emit, value: audio.valid_frames, output: valid_frames, mode: replace}
"""


def write_package(test):
    d = temp_dir(test)
    with open(os.path.join(d, "inference_metadata.yaml"), "w") as f:
        f.write(PACKAGE)
    return d


def write_wav(path, rate, channels, seconds):
    n = int(rate * seconds)
    t = np.arange(n) / rate
    rng = np.random.default_rng(3)
    chans = [0.3 * np.sin(2 * np.pi * (200 * (c + 1) * t + 900 * t * t)) + rng.normal(0, 0.01, n) for c in range(channels)]
    pcm = np.round(np.clip(np.stack(chans, axis=1), -1, 1) * 32767).astype("<i2")
    write_pcm16(path, pcm, rate)
    return pcm.astype(np.float64) / 32768.0  # [n, channels], as a decoder reads 16-bit PCM


def whisper_log_mel(x, n_mels=80, n_fft=400, hop=160, sr=16000):
    """Whisper's features from the definitions: reflect-padded STFT with a periodic Hann window,
    power spectrum, Slaney mel filterbank (Slaney norm), log10 floored at 1e-10, the last frame
    dropped, then max - 8 clamp and (x + 4) / 4."""
    def hz2mel(f):
        return np.where(f >= 1000, 15 + np.log(np.maximum(f, 1e-9) / 1000) / (np.log(6.4) / 27), f * 3 / 200)

    def mel2hz(m):
        return np.where(m >= 15, 1000 * np.exp(np.log(6.4) / 27 * (m - 15)), m * 200 / 3)

    hz = mel2hz(np.linspace(hz2mel(np.array(0.0)), hz2mel(np.array(sr / 2)), n_mels + 2))
    f = np.arange(n_fft // 2 + 1) * sr / n_fft
    fb = np.maximum(0, np.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                                  (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])))
    fb *= (2 / (hz[2:] - hz[:-2]))[:, None]
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)
    p = np.pad(x, n_fft // 2, mode="reflect")
    frames = np.stack([p[i * hop:i * hop + n_fft] for i in range(1 + (len(p) - n_fft) // hop)])[:-1]
    power = np.abs(np.fft.rfft(frames * w, axis=1)) ** 2
    m = np.log10(np.maximum(fb @ power.T, 1e-10))
    return (np.maximum(m, m.max() - 8) + 4) / 4


class AudioPreprocess(unittest.TestCase):
    def run_package(self, wav):
        pkg = write_package(self)
        result = run(OGAI, "run", pkg, "--input", f"request.audio=@{wav}", "--json")
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout)["outputs"]

    def test_features_equal_numpy(self):
        wav = os.path.join(temp_dir(self), "clip.wav")
        samples = write_wav(wav, 16000, 1, 0.6)[:, 0]
        out = self.run_package(wav)
        features = np.array(out["features"]["data"], np.float64).reshape(out["features"]["shape"])
        self.assertEqual(out["features"]["shape"], [1, 80, 100])
        want = whisper_log_mel(np.pad(samples, (0, 16000 - len(samples))))
        err = np.abs(features[0] - want) / np.maximum(1.0, np.abs(want))
        self.assertLessEqual(err.max(), 1e-4, f"worst at {np.unravel_index(err.argmax(), err.shape)}")
        self.assertEqual(out["valid_frames"]["data"], [60])  # ceil(9600 / 160)

    def test_stereo_44k1_is_resampled_and_windowed(self):
        wav = os.path.join(temp_dir(self), "stereo.wav")
        write_wav(wav, 44100, 2, 0.25)
        out = self.run_package(wav)
        self.assertEqual(out["features"]["shape"], [1, 80, 100])
        self.assertEqual(out["valid_frames"]["data"], [25])
        self.assertTrue(np.all(np.isfinite(out["features"]["data"])))

    def test_hostile_files_name_the_input(self):
        d = temp_dir(self)
        pkg = write_package(self)
        good = os.path.join(d, "good.wav")
        write_wav(good, 16000, 1, 0.5)
        with open(good, "rb") as f:
            data = f.read()
        cases = {"truncated.wav": data[:len(data) // 2], "empty.wav": b"",
                 "image.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 64,
                 "ten_hours.wav": data[:40] + (10 * 3600 * 16000 * 2).to_bytes(4, "little") + data[44:200]}
        for name, content in cases.items():
            path = os.path.join(d, name)
            with open(path, "wb") as f:
                f.write(content)
            result = run(OGAI, "run", pkg, "--input", f"request.audio=@{path}")
            self.assertEqual(result.returncode, 1, (name, result.stderr))
            self.assertIn("request.audio", result.stderr, name)
            self.assertNotIn("Traceback", result.stderr)
        self.assertEqual(sorted(os.listdir(d)), sorted(["good.wav", *cases]))  # nothing left behind


if __name__ == "__main__":
    unittest.main()
