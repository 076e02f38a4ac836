"""End-to-end check of media outputs through `ogai run --output-dir`: the speech_wav conformance
fixture (a vocoder emitting float audio [B, 2, 64] at 48 kHz with a WAV media contract of 24 kHz,
2 channels, pcm_s16_le) writes `audio.wav`, which Python's own `wave` module and a byte-level
read of the header check against the contract the reference runtime pins (A:53 in
../shared/conformance/metadata/README.md). Also: `--input NAME=@FILE` bytes for media inputs.
Usage: speech_wav_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import os
import struct
import subprocess
import sys
import unittest
import wave

import numpy as np

from cli_support import SHARED, run, temp_dir

OGAI = sys.argv.pop(1)
FIXTURES = os.path.join(SHARED, "conformance", "metadata", "fixtures")
SPEECH = os.path.join(FIXTURES, "speech_wav")
CODEC = os.path.join(FIXTURES, "codec")
PROMPT = "request.prompt_tokens=[[2,6,7,8,9,3]]"


def ogai(*args):
    return run(OGAI, *args)


class SpeechWav(unittest.TestCase):
    def run_speech(self, *extra):
        out = temp_dir(self)
        result = ogai("run", SPEECH, "--input", PROMPT, "--output-dir", out, *extra)
        self.assertEqual(result.returncode, 0, result.stderr)
        return out, result

    def test_audio_wav_header_is_the_pinned_one(self):
        out, result = self.run_speech()
        self.assertIn("audio.wav", result.stderr)
        with open(os.path.join(out, "audio.wav"), "rb") as f:
            wav = f.read()
        self.assertEqual(wav[0:4], b"RIFF")
        self.assertEqual(struct.unpack_from("<I", wav, 4)[0], len(wav) - 8)
        self.assertEqual(wav[8:16], b"WAVEfmt ")
        fmt_size, fmt_tag, channels, rate, byte_rate, align, bits = struct.unpack_from("<IHHIIHH", wav, 16)
        self.assertEqual((fmt_size, fmt_tag, channels, rate, bits), (16, 1, 2, 24000, 16))
        self.assertEqual((byte_rate, align), (24000 * 4, 4))
        self.assertEqual(wav[36:40], b"data")
        self.assertEqual(struct.unpack_from("<I", wav, 40)[0], 128)  # 48 kHz -> 24 kHz halves the 64 samples
        self.assertEqual(len(wav), 44 + 128)

    def test_wav_holds_the_emitted_audio_resampled(self):
        out, _ = self.run_speech()
        with open(os.path.join(out, "outputs.json")) as f:
            audio = json.load(f)["outputs"]["audio"]
        self.assertEqual(audio["shape"][:2], [1, 2])
        self.assertGreater(audio["shape"][2], 0)
        emitted = np.array(audio["data"], np.float64).reshape(audio["shape"])[0]  # [2, 64] at 48 kHz
        self.assertTrue(np.all(np.isfinite(emitted)))
        with wave.open(os.path.join(out, "audio.wav")) as w:
            self.assertEqual((w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()), (2, 2, 24000, 32))
            pcm = np.frombuffer(w.readframes(32), "<i2").reshape(32, 2).T / 32767.0
        # Every level of the emitted audio survives: per channel RMS within 25 % (32 samples of a
        # band-limited resampling), and the WAV is not silence unless the vocoder's output is.
        for ch in range(2):
            want = np.sqrt(np.mean(np.clip(emitted[ch], -1, 1) ** 2))
            got = np.sqrt(np.mean(pcm[ch] ** 2))
            if want < 1e-4:
                self.assertLess(got, 1e-3)
            else:
                self.assertAlmostEqual(got / want, 1.0, delta=0.25)

    def test_output_dir_is_created_and_json_still_printed(self):
        parent = temp_dir(self)
        out = os.path.join(parent, "nested", "dir")
        result = ogai("run", SPEECH, "--input", PROMPT, "--output-dir", out, "--json")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(os.path.isfile(os.path.join(out, "audio.wav")))
        self.assertEqual(json.loads(result.stdout)["outputs"]["audio"]["shape"][:2], [1, 2])

    def test_without_output_dir_no_file_is_written(self):
        cwd = temp_dir(self)
        result = subprocess.run([OGAI, "run", SPEECH, "--input", PROMPT], cwd=cwd, capture_output=True, text=True,
                                timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(os.listdir(cwd), [])


class MediaInputFiles(unittest.TestCase):
    def test_at_file_on_a_float_input_still_means_npy(self):
        d = temp_dir(self)
        path = os.path.join(d, "wave.raw")
        with open(path, "wb") as f:
            f.write(b"\x00" * 16)
        # The codec fixture's waveform input is float32 [B, 1, N]: a non-.npy file is not its bytes.
        result = ogai("run", CODEC, "--input", f"request.waveform=@{path}")
        self.assertNotEqual(result.returncode, 0)


if __name__ == "__main__":
    unittest.main()
