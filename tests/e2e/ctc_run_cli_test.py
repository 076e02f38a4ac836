"""CTC transcription profiles through `ogai run` (issue 34 item 4): packages written by
ctc_package.py (an ONNX encoder whose logits have a known argmax path) are run, and the decoded
text is compared with the exact strings and with a NumPy greedy-CTC oracle written here from the
reference's semantics (frame argmax, collapse repeats, drop blank, ignored tokens, split on the
word delimiter). Broken profiles are refused naming their field: by the document rules (V-PROFILE)
or, where the document is valid but ogai does not execute the profile, at load (RUN).
Usage: ctc_run_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import os
import sys
import unittest

import numpy as np

import ctc_package
from cli_support import run, temp_dir

OGAI = sys.argv.pop(1)

ROWS = [[1, 1, 0, 1, 2, 3, 3, 2, 4, 2],
        [3, 3, 1, 2, 2, 0, 1, 1, 1, 1]]
MASK = [[1] * 10, [1] * 6 + [0] * 4]


def oracle(logits, lengths, tokens, blank, delimiter, ignored):
    """Greedy CTC in NumPy: one transcript per row."""
    out = []
    for row, n in zip(logits, lengths):
        path = np.argmax(row[:n], axis=-1)
        kept = [int(c) for i, c in enumerate(path) if (i == 0 or c != path[i - 1]) and c != blank]
        words, word = [], ""
        for c in kept:
            t = tokens[c]
            if t in ignored:
                continue
            if t == delimiter:
                words.append(word)
                word = ""
            else:
                word += t
        words.append(word)
        out.append((kept, " ".join(w for w in words if w)))
    return out


def raw_inputs():
    values = (np.array(ROWS, dtype=np.float32) / 4).tolist()
    return ["--input", "request.input_values=" + json.dumps(values),
            "--input", "request.attention_mask=" + json.dumps(MASK)]


class CtcRun(unittest.TestCase):
    def run_json(self, package, *args):
        r = run(OGAI, "run", package, *args, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_raw_samples_decode_to_the_known_text(self):
        pkg = ctc_package.write_package(os.path.join(temp_dir(self), "raw"), "raw")
        doc = self.run_json(pkg, *raw_inputs())
        rows = doc["transcriptions"]["transcription"]
        self.assertEqual([r["text"] for r in rows], ["AAB BB", "AB"])
        # Row 1's padding ([1, 1, 1, 1] after its 6 frames) would add "A" if the lengths were ignored.
        self.assertEqual(rows[1]["ids"], [3, 1, 2])
        logits = np.array(doc["outputs"]["logits"]["data"], dtype=np.float32).reshape(doc["outputs"]["logits"]["shape"])
        np.testing.assert_array_equal(logits, ctc_package.encoder_logits(np.array(ROWS, dtype=np.float32) / 4))
        expected = oracle(logits, doc["outputs"]["frame_lengths"]["data"], ctc_package.TOKENS, 0, "|", {"<s>"})
        self.assertEqual([(r["ids"], r["text"]) for r in rows], expected)

    def test_human_output_prints_the_transcripts(self):
        pkg = ctc_package.write_package(os.path.join(temp_dir(self), "raw"), "raw")
        r = run(OGAI, "run", pkg, *raw_inputs())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('transcription[0]: "AAB BB"\n', r.stdout)
        self.assertIn('transcription[1]: "AB"\n', r.stdout)

    def test_profile_fields_change_the_text(self):
        d = temp_dir(self)
        cases = [  # (replace, by, expected texts): each field of the contract read as the reference defines it
            ("collapse_repeats: true", "collapse_repeats: false", ["AAAB BB", "ABB"]),  # "||" is one break
            ("        word_delimiter: '|'\n", "", ["AAB|BB", "|AB"]),
            ("ignored_tokens: ['<s>']", "ignored_tokens: ['<s>', A]", ["B BB", "B"]),
            ("lengths: frame_lengths", "lengths: null", None),
            ("kind: ctc\n      blank_id: 0", "kind: greedy_argmax", ["A<pad>AB BB", "AB<pad>"]),  # no blank
        ]
        for i, (old, new, texts) in enumerate(cases):
            with self.subTest(old=old, new=new):
                text = ctc_package.RAW.replace(old, new)
                self.assertNotEqual(text, ctc_package.RAW)
                if texts is None:  # lengths: null is not a valid role name; drop the key instead
                    text = ctc_package.RAW.replace("      lengths: frame_lengths\n", "").replace(
                        "    batch_invariance: padding_sensitive\n", "")
                    texts = ["AAB BB", "ABA"]
                pkg = ctc_package.write_package(os.path.join(d, f"case{i}"), document=text)
                doc = self.run_json(pkg, *raw_inputs())
                self.assertEqual([r["text"] for r in doc["transcriptions"]["transcription"]], texts)

    def test_encoded_audio_through_the_audio_preprocess_adapter(self):
        d = temp_dir(self)
        pkg = ctc_package.write_package(os.path.join(d, "audio"), "audio")
        wav = os.path.join(d, "clip.wav")
        ctc_package.write_wav(wav, ROWS[0])
        doc = self.run_json(pkg, "--input", "request.audio=@" + wav)
        self.assertEqual(doc["transcriptions"], {"transcription": [{"text": "AAB BB", "ids": [1, 1, 2, 3, 2, 4, 2]}]})
        out = os.path.join(d, "out")
        r = run(OGAI, "run", pkg, "--input", "request.audio=@" + wav, "--output-dir", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "outputs.json")) as f:
            self.assertEqual(json.load(f)["transcriptions"]["transcription"][0]["text"], "AAB BB")


class CtcRefusals(unittest.TestCase):
    def refused(self, text, *needles, code=1):
        pkg = ctc_package.write_package(os.path.join(temp_dir(self), "bad"), document=text)
        r = run(OGAI, "run", pkg, *raw_inputs())
        self.assertEqual(r.returncode, code, r.stdout + r.stderr)
        for n in needles:
            self.assertIn(n, r.stderr)
        return r.stderr

    def test_document_rules(self):
        raw = ctc_package.RAW
        self.refused(raw.replace("      blank_id: 0\n", ""), "profiles.transcription.decoding.blank_id")
        self.refused(raw.replace("class_axis: 2", "class_axis: 1"), "profiles.transcription.decoding",
                     "time_axis and class_axis")
        self.refused(raw.replace("word_delimiter: '|'", "word_delimiter: '#'"),
                     "profiles.transcription.decoding.vocabulary.word_delimiter")
        self.refused(raw.replace("blank_id: 0", "blank_id: 7"), "profiles.transcription.decoding.blank_id")
        self.refused(raw.replace("size: 5", "size: 6"), "profiles.transcription.decoding.vocabulary.size")
        self.refused(raw.replace("ignored_tokens: ['<s>']", "ignored_tokens: ['</s>']"),
                     "profiles.transcription.decoding.vocabulary.ignored_tokens")
        self.refused(raw.replace("lengths: frame_lengths", "lengths: valid_frames"),
                     "profiles.transcription.decoding.lengths")
        self.refused(raw.replace("outputs: {logits: logits, frame_lengths: frame_lengths}",
                                 "outputs: {logits: scores, frame_lengths: frame_lengths}"),
                     "profiles.transcription.outputs.logits")

    def test_profiles_ogai_does_not_execute_are_refused_at_load(self):
        raw = ctc_package.RAW
        self.refused(raw.replace("kind: ctc", "kind: beam_search"), "profiles.transcription.decoding.kind",
                     "beam_search")
        self.refused(raw.replace("source: inline", "source: lexicon"),
                     "profiles.transcription.decoding.vocabulary.source")
        self.refused(raw.replace("outputs: {logits: logits, frame_lengths: frame_lengths}",
                                 "outputs: {scores: logits, frame_lengths: frame_lengths}"),
                     "profiles.transcription.outputs", "`logits`")
        no_vocab = raw.split("      vocabulary:\n")[0]
        self.refused(no_vocab, "profiles.transcription.decoding.vocabulary", "tokenizer.json")
        embedding = raw + "  pooled:\n    kind: embedding\n    version: '1'\n    outputs: {embedding: logits}\n"
        self.refused(embedding, "profiles.pooled.kind", "'embedding'")
        # An ignorable profile ogai does not execute is skipped; the CTC one still runs.
        ignorable = embedding + "    requirement: ignorable\n"
        pkg = ctc_package.write_package(os.path.join(temp_dir(self), "ok"), document=ignorable)
        r = run(OGAI, "run", pkg, *raw_inputs(), "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(list(json.loads(r.stdout)["transcriptions"]), ["transcription"])


if __name__ == "__main__":
    unittest.main()
