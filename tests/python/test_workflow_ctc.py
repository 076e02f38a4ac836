"""ogai.Workflow(path).run(...) returns a CTC transcription profile's transcripts as `ogai run --json`
prints them ({'transcriptions': {PROFILE: [{'text', 'ids'}, ...]}}), on the packages
tests/e2e/ctc_package.py writes: raw samples (two rows, the second padded) and an encoded WAV through
the audio-preprocess adapter. The texts are the known strings the encoder's argmax path spells,
and equal the command line's; a package without a profile has no 'transcriptions' key."""
import json
import os
import sys

import numpy as np

import ogai
from conftest import SOURCE, cli

sys.path.insert(0, os.path.join(SOURCE, "tests", "e2e"))
import ctc_package  # noqa: E402

ROWS = [[1, 1, 0, 1, 2, 3, 3, 2, 4, 2],
        [3, 3, 1, 2, 2, 0, 1, 1, 1, 1]]
MASK = [[1] * 10, [1] * 6 + [0] * 4]


def test_raw_rows_transcribed_as_the_cli(tmp_path):
    pkg = ctc_package.write_package(str(tmp_path / "raw"), "raw")
    values = (np.array(ROWS, dtype=np.float32) / 4).tolist()
    out = ogai.Workflow(pkg).run({"request.input_values": values, "request.attention_mask": MASK})
    rows = out["transcriptions"]["transcription"]
    assert [r["text"] for r in rows] == ["AAB BB", "AB"]
    assert rows[1]["ids"] == [3, 1, 2]  # the padding would add an "A" if the lengths were ignored
    doc = json.loads(cli("run", pkg, "--input", "request.input_values=" + json.dumps(values),
                         "--input", "request.attention_mask=" + json.dumps(MASK), "--json").stdout)
    assert out["transcriptions"] == doc["transcriptions"]


def test_encoded_audio_transcribed(tmp_path):
    pkg = ctc_package.write_package(str(tmp_path / "audio"), "audio")
    wav = str(tmp_path / "clip.wav")
    ctc_package.write_wav(wav, ROWS[0])
    with open(wav, "rb") as f:
        out = ogai.Workflow(pkg).run({"request.audio": f.read()})
    assert out["transcriptions"] == {"transcription": [{"text": "AAB BB", "ids": [1, 1, 2, 3, 2, 4, 2]}]}


def test_no_profile_no_key():
    fixtures = os.path.join(os.environ.get("OGAI_SHARED_DIR", os.path.join(SOURCE, "..", "shared")),
                            "conformance", "metadata", "fixtures")
    out = ogai.Workflow(os.path.join(fixtures, "speech_wav")).run({"request.prompt_tokens": [[2, 6, 7, 8, 9, 3]]})
    assert "transcriptions" not in out
