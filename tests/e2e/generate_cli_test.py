"""End-to-end checks of `ogai generate` in the exact forms issue 6 spells out.

Goldens: the stories260k README's greedy continuation of "Once upon a time" (read at run time).
Where no golden exists (chat prompts, sampling) the checks are differential: against `ogai template`
+ `ogai tokenize`, against greedy decoding, or against another run with the same seed.
Usage: generate_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import os
import sys
import unittest

from cli_support import (STORIES, STORIES_PROMPT, STORIES_PROMPT_IDS, TINY_E2B, copy_package, json_line, run,
                         stories_golden, temp_dir, without_chat_template, BINARY)

OGAI = sys.argv.pop(1)
FWRITE_GUARD = sys.argv.pop(1)
GOLDEN_IDS, GOLDEN_TEXT = stories_golden()
TIMING_KEYS = ("load_ms", "prefill_ms", "decode_ms", "ttft_ms", "decode_tok_s")


def ogai(*args, **kw):
    return run(OGAI, *args, **kw)


# The CLI samples at temperature 1 when nothing says otherwise (docs/cli.md#sampling-default);
# these checks are of greedy output, so a call that names no sampling flag asks for greedy.
SAMPLING_FLAGS = ("--temperature", "--top-k", "--top-p", "--min-p", "--typical-p", "--speculative")


def greedy_unless_sampling(flags):
    return tuple(flags) if any(str(f).split("=")[0] in SAMPLING_FLAGS for f in flags) else (*flags, "--temperature", "0")


def generate(*flags, package=STORIES, prompt=STORIES_PROMPT, env=None):
    return ogai("generate", package, "--prompt", prompt, *greedy_unless_sampling(flags), env=env)


def generate_json(test, *flags, **kw):
    return json_line(test, generate(*flags, "--json", **kw))


class GoldenTest(unittest.TestCase):
    def test_plain_prints_exactly_the_golden_text(self):
        r = generate("--max-new-tokens", "60")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, GOLDEN_TEXT)  # not a terminal: nothing added

    def test_json_object(self):
        doc = generate_json(self, "--max-new-tokens", "60")
        self.assertEqual(list(doc), ["prompt_ids", "ids", "text", "finish_reason", "timings"])  # the order
        self.assertEqual(list(doc["timings"])[:5], list(TIMING_KEYS))
        self.assertEqual(doc["prompt_ids"], STORIES_PROMPT_IDS)
        self.assertEqual(doc["ids"], GOLDEN_IDS)
        self.assertEqual(doc["text"], GOLDEN_TEXT)
        self.assertEqual(doc["finish_reason"], "length")
        for key in TIMING_KEYS:
            self.assertIsInstance(doc["timings"][key], (int, float), key)
            self.assertGreater(doc["timings"][key], 0, key)
        self.assertGreaterEqual(doc["timings"]["decode_ms"] + doc["timings"]["prefill_ms"],
                                doc["timings"]["prefill_ms"])

    def test_stream_output_equals_the_text(self):
        r = generate("--max-new-tokens", "60", "--stream")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, GOLDEN_TEXT)

    def test_stream_never_passes_a_null_buffer_to_fwrite(self):
        # Issue 12 finding 14: the event of an EOS token has an empty piece whose data() is null.
        # The stories260k copy stops at a token it generates early (261), so that event happens.
        pkg = copy_package(STORIES, temp_dir(self))
        with open(os.path.join(pkg, "generation_config.json"), "w", encoding="utf-8") as f:
            json.dump({"bos_token_id": 1, "eos_token_id": [2, 261]}, f)
        env = dict(os.environ, LD_PRELOAD=FWRITE_GUARD, ASAN_OPTIONS="verify_asan_link_order=0")
        r = generate("--max-new-tokens", "40", "--stream", package=pkg, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        plain = generate("--max-new-tokens", "40", "--json", package=pkg)
        doc = json_line(self, plain)
        self.assertEqual(doc["finish_reason"], "eos")
        self.assertEqual(r.stdout, doc["text"])

    def test_stream_with_json_prints_only_the_object(self):
        doc = generate_json(self, "--max-new-tokens", "60", "--stream")
        self.assertEqual(doc["text"], GOLDEN_TEXT)

    def test_max_new_tokens_cuts_the_golden(self):
        doc = generate_json(self, "--max-new-tokens", "7")
        self.assertEqual(doc["ids"], GOLDEN_IDS[:7])
        self.assertEqual(doc["finish_reason"], "length")

    def test_ep_cpu_and_threads_keep_the_golden(self):
        for flags in (("--ep", "cpu"), ("--threads", "1"), ("--threads", "2", "--ep", "cpu")):
            r = generate("--max-new-tokens", "60", *flags)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, GOLDEN_TEXT, flags)

    def test_prefill_chunk_keeps_the_golden(self):
        doc = generate_json(self, "--max-new-tokens", "60", "--prefill-chunk", "2")
        self.assertEqual(doc["ids"], GOLDEN_IDS)


class ChatFlagTest(unittest.TestCase):
    def rendered_ids(self, package, messages):
        """The ids `--chat` must feed: `ogai template` rendering, tokenized without special tokens."""
        d = temp_dir(self)
        path = os.path.join(d, "messages.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(messages, f)
        t = ogai("template", package, "--messages", path, "--add-generation-prompt")
        self.assertEqual(t.returncode, 0, t.stderr)
        k = ogai("tokenize", package, "--no-special", "--text", t.stdout)
        self.assertEqual(k.returncode, 0, k.stderr)
        return json.loads(k.stdout)

    def test_stories_chat_is_the_plain_prompt(self):
        # The stories template is "<s>" + the message: the same ids as the plain prompt with BOS.
        doc = generate_json(self, "--max-new-tokens", "60", "--chat")
        self.assertEqual(doc["prompt_ids"], STORIES_PROMPT_IDS)
        self.assertEqual(doc["text"], GOLDEN_TEXT)

    def test_system_message_goes_through_the_template(self):
        for package in (STORIES, TINY_E2B):
            doc = generate_json(self, "--max-new-tokens", "4", "--chat", "--system", "Be brief.", package=package)
            expected = self.rendered_ids(package, [{"role": "system", "content": "Be brief."},
                                                   {"role": "user", "content": STORIES_PROMPT}])
            self.assertEqual(doc["prompt_ids"], expected, package)

    def test_tiny_e2b_chat_prompt(self):
        doc = generate_json(self, "--max-new-tokens", "4", "--chat", package=TINY_E2B)
        self.assertEqual(doc["prompt_ids"], self.rendered_ids(TINY_E2B, [{"role": "user", "content": STORIES_PROMPT}]))
        self.assertEqual(doc["prompt_ids"].count(2), 1)  # one <bos>: the template's, none added

    def test_system_without_chat_is_a_usage_error(self):
        r = generate("--system", "Be brief.")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--system", r.stderr)

    def test_chat_without_a_template_fails_clearly(self):
        package = without_chat_template(STORIES, temp_dir(self))
        plain = generate("--max-new-tokens", "60", package=package)
        self.assertEqual(plain.stdout, GOLDEN_TEXT, plain.stderr)  # the copy itself works
        r = generate("--chat", package=package)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")
        self.assertIn("no chat template", r.stderr)
        self.assertIn(package, r.stderr)


class SamplingTest(unittest.TestCase):
    SAMPLE = ("--max-new-tokens", "60", "--temperature", "1.0")

    def test_same_seed_same_text(self):
        flags = self.SAMPLE + ("--top-k", "40", "--top-p", "0.95", "--min-p", "0.01",
                               "--repetition-penalty", "1.1")
        a = generate_json(self, *flags, "--seed", "7")
        b = generate_json(self, *flags, "--seed", "7")
        self.assertEqual(a["ids"], b["ids"])
        self.assertEqual(a["text"], b["text"])
        c = generate_json(self, *flags, "--seed", "8")
        self.assertNotEqual(a["ids"], c["ids"])
        self.assertNotEqual(a["ids"], GOLDEN_IDS)  # it really sampled

    def test_speculative_sampling_is_reproducible(self):
        flags = ("--max-new-tokens", "40", "--speculative", "ngram", "--temperature", "0.8", "--seed", "3")
        # A prompt that repeats itself, so that the lookup (two tokens at least) proposes at once.
        prompt = "Once upon a time, there was a girl. Once upon a time"
        a = generate_json(self, *flags, prompt=prompt)
        b = generate_json(self, *flags, prompt=prompt)
        self.assertEqual(a["ids"], b["ids"])
        self.assertEqual(a["text"], b["text"])
        self.assertNotEqual(a["ids"], GOLDEN_IDS)  # it really sampled
        stats = a["speculative"]
        self.assertGreater(stats["draft_tokens"], 0)
        self.assertLessEqual(stats["accepted_draft_tokens"], stats["draft_tokens"])
        r = generate(*flags, prompt=prompt)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, a["text"])

    def test_filters_that_keep_one_token_are_greedy(self):
        for flags in (("--top-k", "1"), ("--top-p", "0.000001"), ("--min-p", "1.0")):
            doc = generate_json(self, *self.SAMPLE, *flags, "--seed", "3")
            self.assertEqual(doc["ids"], GOLDEN_IDS, flags)

    def test_temperature_zero_is_greedy(self):
        doc = generate_json(self, "--max-new-tokens", "60", "--temperature", "0", "--seed", "3")
        self.assertEqual(doc["ids"], GOLDEN_IDS)

    def test_repetition_penalty_changes_greedy_output(self):
        a = generate_json(self, "--max-new-tokens", "60", "--repetition-penalty", "1.5")
        b = generate_json(self, "--max-new-tokens", "60", "--repetition-penalty", "1.5")
        self.assertEqual(a["ids"], b["ids"])  # still greedy: deterministic without a seed
        self.assertNotEqual(a["ids"], GOLDEN_IDS)
        # The golden repeats tokens; a penalised prompt/history token must differ somewhere after it.
        first = next(i for i, t in enumerate(GOLDEN_IDS) if t in GOLDEN_IDS[:i] or t in STORIES_PROMPT_IDS)
        self.assertEqual(a["ids"][:first], GOLDEN_IDS[:first])


class StopTest(unittest.TestCase):
    def test_stop_string_is_never_printed(self):
        for mode in ((), ("--stream",)):
            r = generate("--max-new-tokens", "60", "--stop", "named Lily", *mode)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, GOLDEN_TEXT[:GOLDEN_TEXT.index("named Lily")], mode)

    def test_stop_json_reports_stop(self):
        doc = generate_json(self, "--max-new-tokens", "60", "--stop", "park")
        self.assertEqual(doc["text"], GOLDEN_TEXT[:GOLDEN_TEXT.index("park")])
        self.assertEqual(doc["finish_reason"], "stop")
        self.assertEqual(doc["ids"], GOLDEN_IDS[:len(doc["ids"])])
        self.assertLess(len(doc["ids"]), 60)

    def test_stop_is_repeatable_and_the_earliest_wins(self):
        doc = generate_json(self, "--max-new-tokens", "60", "--stop", "ball", "--stop", "girl", "--stop", "zebra")
        self.assertEqual(doc["text"], GOLDEN_TEXT[:GOLDEN_TEXT.index("girl")])
        self.assertEqual(doc["finish_reason"], "stop")

    def test_stop_across_a_newline(self):
        doc = generate_json(self, "--max-new-tokens", "60", "--stop", ".\nLily")
        self.assertEqual(doc["text"], GOLDEN_TEXT[:GOLDEN_TEXT.index(".\nLily")])
        self.assertEqual(doc["finish_reason"], "stop")

    def test_unmatched_stop_keeps_the_golden(self):
        doc = generate_json(self, "--max-new-tokens", "60", "--stop", "dragon")
        self.assertEqual(doc["text"], GOLDEN_TEXT)
        self.assertEqual(doc["finish_reason"], "length")


class EosTest(unittest.TestCase):
    """A copy of stories260k whose generation_config.json also names the golden's third id as EOS."""

    def setUp(self):
        self.package = copy_package(STORIES, temp_dir(self))
        with open(os.path.join(self.package, "generation_config.json"), "w", encoding="utf-8") as f:
            json.dump({"bos_token_id": 1, "eos_token_id": [2, GOLDEN_IDS[2]]}, f)

    def test_eos_ends_generation(self):
        doc = generate_json(self, "--max-new-tokens", "60", package=self.package)
        self.assertEqual(doc["finish_reason"], "eos")
        self.assertEqual(doc["ids"], GOLDEN_IDS[:3])  # the EOS id is reported, its text is not
        before = ogai("tokenize", STORIES, "--decode", stdin=json.dumps(GOLDEN_IDS[:2]))
        self.assertEqual(doc["text"], before.stdout)
        self.assertTrue(GOLDEN_TEXT.startswith(doc["text"]))

    def test_ignore_eos_keeps_going(self):
        doc = generate_json(self, "--max-new-tokens", "60", "--ignore-eos", package=self.package)
        self.assertEqual(doc["ids"], GOLDEN_IDS)
        self.assertEqual(doc["finish_reason"], "length")


def ort_has_cuda():
    """Whether the ONNX Runtime library this build links ships the CUDA execution provider."""
    with open(os.path.join(BINARY, "CMakeCache.txt"), encoding="utf-8") as f:
        lib = next(l.split("=", 1)[1].strip() for l in f if l.startswith("ONNXRUNTIME_LIBRARY:"))
    return os.path.exists(os.path.join(os.path.dirname(lib), "libonnxruntime_providers_cuda.so"))


class PromptSourcesAndFlagsTest(unittest.TestCase):
    """Where the prompt comes from, options that take one value each, and --seed -1."""

    def test_prompt_from_standard_input(self):
        for flags in ((), ("--prompt", "-")):
            with self.subTest(flags=flags):
                r = ogai("generate", STORIES, "--max-new-tokens", "60", "--temperature", "0", *flags,
                         stdin=STORIES_PROMPT + "\n")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout, GOLDEN_TEXT)

    def test_prompt_file(self):
        path = os.path.join(temp_dir(self), "prompt.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(STORIES_PROMPT)
        r = ogai("generate", STORIES, "--prompt-file", path, "--max-new-tokens", "60", "--temperature", "0")
        self.assertEqual((r.returncode, r.stdout), (0, GOLDEN_TEXT), r.stderr)
        missing = ogai("generate", STORIES, "--prompt-file", path + ".missing")
        self.assertEqual(missing.returncode, 1)
        self.assertIn("prompt.txt.missing", missing.stderr)
        self.assertEqual(ogai("generate", STORIES, "--prompt-file", path, "--prompt", "x").returncode, 2)

    def test_no_prompt_at_all_is_a_usage_error(self):
        r = ogai("generate", STORIES, stdin="")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--prompt", r.stderr)

    def test_stop_does_not_swallow_the_package(self):
        r = ogai("generate", "--stop", "named Lily", STORIES, "--prompt", STORIES_PROMPT, "--max-new-tokens", "60",
                 "--temperature", "0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, GOLDEN_TEXT[:GOLDEN_TEXT.index("named Lily")])

    def test_seed_minus_one_is_random_and_reported(self):
        docs = [generate_json(self, "--temperature", "1", "--seed", "-1", "--max-new-tokens", "30") for _ in range(2)]
        seeds = [d["seed"] for d in docs]
        self.assertTrue(all(isinstance(x, int) and x >= 0 for x in seeds), seeds)
        self.assertNotEqual(seeds[0], seeds[1])
        again = generate_json(self, "--temperature", "1", "--seed", str(seeds[0]), "--max-new-tokens", "30")
        self.assertEqual(again["ids"], docs[0]["ids"])  # the reported seed reproduces the run
        self.assertNotIn("seed", again)
        bad = generate("--seed", "-2")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--seed", bad.stderr)


class BadInputTest(unittest.TestCase):
    def assert_fails(self, r, *needles):
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout, "")
        for needle in needles:
            self.assertIn(needle, r.stderr)

    def test_unknown_package_path(self):
        self.assert_fails(generate(package="/nonexistent/ogai-package"), "/nonexistent/ogai-package")

    def broken_copy(self, old, new):
        package = copy_package(TINY_E2B, temp_dir(self))
        path = os.path.join(package, "inference_metadata.yaml")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertIn(old, text)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))
        self.assertEqual(ogai("validate", package).returncode, 1)  # `ogai validate` agrees it is broken
        return package

    def test_package_that_fails_validation(self):
        package = self.broken_copy("input_ids: {dtype: int64", "input_ids: {dtype: int32")
        self.assert_fails(generate(package=package), package, "R2", "input_ids", "int32", "int64")
        package = self.broken_copy("artifact: model.onnx", "artifact: missing.onnx")
        self.assert_fails(generate(package=package), "missing.onnx")

    def broken_file(self, name, text):
        package = copy_package(TINY_E2B, temp_dir(self))
        with open(os.path.join(package, name), "w", encoding="utf-8") as f:
            f.write(text)
        return package

    def test_validate_is_as_strong_as_load(self):
        # Issue 12 findings 8 and 12: what load refuses, validate refuses with the same reason.
        chain = "{{ " + "1 if 1 else " * 300000 + "0 }}"
        package = self.broken_file("chat_template.jinja", chain)
        v = ogai("validate", package)
        self.assertEqual(v.returncode, 1, v.stdout + v.stderr)
        self.assertIn("LOAD chat_template.jinja:1:2399: template syntax error: template nested more than 200 levels deep", v.stdout)
        self.assert_fails(generate(package=package), "template nested more than 200 levels deep")
        with open(os.path.join(TINY_E2B, "tokenizer.json"), encoding="utf-8") as f:
            tok = json.load(f)
        tok["normalizer"] = {"type": "NoSuchNormalizer"}
        package = self.broken_file("tokenizer.json", json.dumps(tok))
        v = ogai("validate", package)
        self.assertEqual(v.returncode, 1, v.stdout + v.stderr)
        self.assertIn("LOAD tokenizer.json: unsupported normalizer 'NoSuchNormalizer' at normalizer", v.stdout)
        self.assert_fails(generate(package=package), "NoSuchNormalizer")
        tok = json.load(open(os.path.join(TINY_E2B, "tokenizer.json"), encoding="utf-8"))
        tok["added_tokens"].append({"id": 700, "content": "<tool>", "special": True, "normalized": False})
        package = self.broken_file("tokenizer.json", json.dumps(tok))
        v = ogai("validate", package)
        self.assertIn("VOCAB tokenizer.json: added token '<tool>' has id 700, outside the graph's logits (515 entries)", v.stdout)
        self.assert_fails(generate(package=package), "added token '<tool>' has id 700")

    def test_the_unbroken_copy_works(self):
        package = copy_package(TINY_E2B, temp_dir(self))
        self.assertEqual(generate("--max-new-tokens", "3", package=package).returncode, 0)

    def test_prompt_over_the_context(self):
        long_prompt = "Once upon a time there was a cat. " * 80
        self.assert_fails(generate(prompt=long_prompt), "512")
        # --truncate-prompt keeps the prompt's end; generation then stops at the context limit.
        full = json.loads(ogai("tokenize", STORIES, "--text", long_prompt).stdout)
        doc = generate_json(self, "--max-new-tokens", "4", "--truncate-prompt", prompt=long_prompt)
        self.assertGreater(len(full), 512)
        self.assertEqual(doc["prompt_ids"], full[len(full) - len(doc["prompt_ids"]):])
        self.assertLessEqual(len(doc["prompt_ids"]) + len(doc["ids"]), 512)
        self.assertGreaterEqual(len(doc["ids"]), 1)
        self.assertEqual(doc["finish_reason"], "length")

    def test_invalid_sampling_values(self):
        cases = [(("--temperature", "-0.5"), "temperature"), (("--top-p", "0"), "top_p"),
                 (("--top-p", "1.5"), "top_p"), (("--top-k", "-1"), "top_k"),
                 (("--min-p", "2"), "min_p"), (("--repetition-penalty", "0"), "repetition_penalty"),
                 (("--max-new-tokens", "-1"), "max_new_tokens")]
        for flags, name in cases:
            with self.subTest(flags=flags):
                self.assert_fails(generate(*flags), name, flags[1])

    def test_malformed_numbers_are_usage_errors(self):
        for flags in (("--temperature", "warm"), ("--top-k", "1.5"), ("--threads", "-1"), ("--ep", "tpu")):
            with self.subTest(flags=flags):
                self.assertEqual(generate(*flags).returncode, 2)

    def test_cuda_without_cuda(self):
        r = generate("--max-new-tokens", "60", "--ep", "cuda")
        if ort_has_cuda():  # a CUDA build: either it runs, or it says why CUDA did not start
            self.assertIn(r.returncode, (0, 1), r.stderr)
            if r.returncode == 1:
                self.assertIn("CUDA", r.stderr)
        else:  # this library lacks the provider (or its shared library): a clear failure
            self.assert_fails(r, "CUDA", "--ep cpu")
            self.assert_fails(r, "the ONNX Runtime in use (", ") is CPU-only", "ONNXRUNTIME_ROOT", "docs/gpu.md")
        fallback = generate("--max-new-tokens", "60", "--ep", "cuda", "--allow-cpu-fallback")
        self.assertEqual(fallback.returncode, 0, fallback.stderr)
        self.assertEqual(fallback.stdout, GOLDEN_TEXT)


if __name__ == "__main__":
    unittest.main()
