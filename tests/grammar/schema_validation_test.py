"""Constrained generation end to end: every output that ends (EOS) validates.

JSON Schema outputs are checked with python3-jsonschema (Draft 2020-12, formats checked), regex
outputs with Python's re.fullmatch, on stories260k and on the random-weight tiny-e2b fixture (where
the grammar does all the work), greedy and sampled with several seeds, single sequences, batched
rows, rows of one continuous batch (ogai::Engine) each with its own schema, and n-gram
speculative decoding. Unsupported keywords fail with the keyword named, from the
API and the CLI (exit 1).
Usage: schema_validation_test.py CONSTRAINED_GENERATE OGAI_EXE (OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import jsonschema

TOOL = sys.argv.pop(1)
OGAI = sys.argv.pop(1)
SOURCE = os.environ["OGAI_SOURCE_DIR"]
BINARY = os.environ["OGAI_BINARY_DIR"]
STORIES = os.path.join(BINARY, "packages", "stories260k")
TINY_E2B = os.path.join(SOURCE, "tests", "data", "packages", "tiny-e2b")

SCHEMAS = {
    "object": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 8},
                                                "age": {"type": "integer", "minimum": 0, "maximum": 120},
                                                "ok": {"type": "boolean"}},
               "required": ["name", "age"], "additionalProperties": False},
    "enum_const": {"type": "object", "properties": {"color": {"enum": ["red", "green", "blue"]},
                                                    "v": {"const": 2}},
                   "required": ["color", "v"], "additionalProperties": False},
    "array": {"type": "array", "items": {"type": "integer", "minimum": -5, "exclusiveMaximum": 50},
              "minItems": 1, "maxItems": 4},
    "prefix_items": {"type": "array", "prefixItems": [{"type": "string", "maxLength": 3}, {"type": "null"}],
                     "items": False, "minItems": 2},
    "refs": {"$defs": {"pt": {"type": "object", "properties": {"x": {"type": "integer", "maximum": 9, "minimum": 0}},
                              "required": ["x"], "additionalProperties": False}},
             "type": "array", "items": {"$ref": "#/$defs/pt"}, "maxItems": 2},
    "recursive": {"type": "object", "properties": {"v": {"type": "integer", "minimum": 0, "maximum": 9},
                                                   "next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}},
                  "required": ["v", "next"], "additionalProperties": False},
    "any_of": {"anyOf": [{"type": "boolean"}, {"type": "string", "minLength": 1, "maxLength": 4}, {"type": "null"}]},
    "one_of": {"oneOf": [{"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"],
                          "additionalProperties": False},
                         {"type": "object", "properties": {"k": {"const": "b"}, "n": {"type": "integer", "minimum": 0,
                                                                                   "maximum": 99}},
                          "required": ["k", "n"], "additionalProperties": False}]},
    "pattern": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{3}$"},
    "formats": {"type": "object", "properties": {"d": {"type": "string", "format": "date"},
                                                 "u": {"type": "string", "format": "uuid"},
                                                 "e": {"type": "string", "format": "email"}},
                "required": ["d", "u", "e"], "additionalProperties": False},
    "number_bounds": {"type": "number", "minimum": -3, "exclusiveMaximum": 4},
    "string_lengths": {"type": "string", "minLength": 2, "maxLength": 5},
    "type_list": {"type": ["integer", "null"], "maximum": 7, "minimum": 3},
    "map": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 9}},
    # Keywords of issue 25.
    "pattern_properties": {"type": "object", "patternProperties": {"^k[0-9]$": {"type": "integer", "minimum": 0,
                                                                              "maximum": 9}},
                           "additionalProperties": False, "maxProperties": 3},
    "property_names": {"type": "object", "propertyNames": {"pattern": "^[a-c]{1,2}$"},
                       "additionalProperties": {"type": "boolean"}, "maxProperties": 2},
    "if_then_else_not": {"type": "object", "properties": {"kind": {"enum": ["a", "b"]},
                                                          "n": {"type": "integer", "minimum": 0, "maximum": 9}},
                         "required": ["kind"], "additionalProperties": False,
                         "if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["n"]},
                         "else": {"not": {"required": ["n"]}}},
    "dependencies": {"type": "object", "properties": {"a": {"type": "boolean"},
                                                      "b": {"type": "integer", "minimum": 0, "maximum": 5}},
                     "dependentRequired": {"a": ["b"]}, "additionalProperties": False, "minProperties": 1},
    "all_of": {"allOf": [{"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
                         {"properties": {"x": {"minimum": 1, "maximum": 5}}}]},
    "multiple_of": {"type": "array", "items": {"type": "integer", "multipleOf": 7}, "maxItems": 3},
    "decimal_multiple": {"type": "number", "multipleOf": 0.25, "minimum": -1, "maximum": 2},
    "non_integer_bounds": {"type": "number", "minimum": 0.5, "maximum": 3.75},
    "contains": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 9},
                 "contains": {"const": 7}, "maxItems": 4},
    "unique_items": {"type": "array", "items": {"type": "string", "maxLength": 3}, "uniqueItems": True},
    "new_formats": {"type": "object", "properties": {"ip": {"type": "string", "format": "ipv4"},
                                                     "h": {"type": "string", "format": "hostname"},
                                                     "d": {"type": "string", "format": "duration"}},
                    "required": ["ip", "h", "d"], "additionalProperties": False},
    "not_type": {"type": ["string", "integer", "null"], "not": {"type": "null"}, "maxLength": 3,
                 "minimum": 0, "maximum": 9},
    "min_max_properties": {"type": "object", "properties": {"a": {"type": "null"}, "b": {"type": "null"},
                                                            "c": {"type": "null"}},
                           "minProperties": 2, "maxProperties": 2, "additionalProperties": False},
}

REGEXES = [r"[a-z]{3,6}", r"(yes|no)!", r"\d{3}-\d{4}"]


class Runner:
    def __init__(self):
        self.proc = subprocess.Popen([TOOL], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __call__(self, **job):
        job = {k: v for k, v in job.items() if v is not None}
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


RUN = Runner()
CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER


def validate(test, schema, text, label):
    try:
        value = json.loads(text)
    except ValueError as e:
        test.fail(f"{label}: not JSON ({e}): {text!r}")
    errors = list(jsonschema.Draft202012Validator(schema, format_checker=CHECKER).iter_errors(value))
    test.assertEqual(errors, [], f"{label}: {text!r}")


class SchemaOutputsValidate(unittest.TestCase):
    def check(self, package, runs, max_new_tokens, min_finished):
        finished = total = 0
        for name, schema in SCHEMAS.items():
            fmt = {"kind": "json_schema", "text": json.dumps(schema)}
            for temperature, seed, extra in runs:
                reply = RUN(package=package, format=fmt, temperature=temperature, seed=seed,
                            max_new_tokens=max_new_tokens, **extra)
                self.assertNotIn("error", reply, name)
                for r in reply["results"]:
                    total += 1
                    label = f"{os.path.basename(package)} {name} t={temperature} seed={seed} {extra}"
                    if r["finish_reason"] == "eos":
                        finished += 1
                        validate(self, schema, r["text"], label)
                    else:
                        self.assertEqual(r["finish_reason"], "length", label)
        print(f"{os.path.basename(package)}: {finished} of {total} outputs finished, all valid", file=sys.stderr)
        self.assertGreaterEqual(finished / total, min_finished, f"{finished} of {total} finished")
        return finished

    def test_stories260k_greedy_and_sampled(self):
        runs = [(0.0, None, {}), (0.8, 1, {}), (1.0, 2, {}), (1.0, 3, {"speculative": "ngram"})]
        self.check(STORIES, runs, 96, 0.6)

    def test_random_weights_fixture(self):
        runs = [(0.0, None, {}), (1.0, 4, {}), (1.0, 5, {"batch": 3})]
        self.check(TINY_E2B, runs, 96, 0.3)


class EngineRowsWithDifferentGrammars(unittest.TestCase):
    def test_continuous_batch_of_schemas(self):
        names = list(SCHEMAS)
        formats = [{"kind": "json_schema", "text": json.dumps(SCHEMAS[n])} for n in names]
        for package in (STORIES, TINY_E2B):
            reply = RUN(package=package, format=formats[0], engine=formats, temperature=1.0, seed=21,
                        max_new_tokens=96)
            self.assertNotIn("error", reply)
            finished = 0
            for name, r in zip(names, reply["results"]):
                if r["finish_reason"] == "eos":
                    finished += 1
                    validate(self, SCHEMAS[name], r["text"], f"engine {os.path.basename(package)} {name}")
            self.assertGreater(finished, len(names) // 3)


class RegexAndGrammarOutputs(unittest.TestCase):
    def test_regex_full_matches(self):
        for pattern in REGEXES:
            for package in (STORIES, TINY_E2B):
                for temperature, seed in ((0.0, None), (1.0, 7), (1.0, 8)):
                    reply = RUN(package=package, format={"kind": "regex", "text": pattern}, temperature=temperature,
                                seed=seed, max_new_tokens=24)
                    for r in reply["results"]:
                        if r["finish_reason"] == "eos":
                            self.assertIsNotNone(re.fullmatch(pattern, r["text"]), (pattern, r["text"]))

    def test_gbnf(self):
        grammar = 'root ::= "(" item ("," item){0,3} ")"\nitem ::= [0-9] | "x" [a-c]'
        for temperature, seed in ((0.0, None), (1.0, 9)):
            reply = RUN(package=TINY_E2B, format={"kind": "grammar", "text": grammar}, temperature=temperature,
                        seed=seed, max_new_tokens=24)
            r = reply["results"][0]
            self.assertEqual(r["finish_reason"], "eos")
            self.assertIsNotNone(re.fullmatch(r"\((?:[0-9]|x[a-c])(?:,(?:[0-9]|x[a-c])){0,3}\)", r["text"]), r["text"])


class FailsClosed(unittest.TestCase):
    def test_api_names_the_keyword(self):
        schema = {"type": "object", "properties": {"a": {"type": "object", "$dynamicRef": "#m"}}}
        reply = RUN(package=STORIES, format={"kind": "json_schema", "text": json.dumps(schema)})
        self.assertEqual(reply.get("code"), "unsupported", reply)
        self.assertIn("'$dynamicRef'", reply["error"])
        self.assertIn("#/properties/a/$dynamicRef", reply["error"])

    def test_cli_exits_1_naming_the_keyword(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"type": "object", "not": {"propertyNames": {"maxLength": 3}}}, f)
        r = subprocess.run([OGAI, "generate", STORIES, "--prompt", "x", "--json-schema", f.name],
                           capture_output=True, text=True, timeout=60)
        os.unlink(f.name)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("'not'", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_cli_regex_and_flags_exclusive(self):
        r = subprocess.run([OGAI, "generate", STORIES, "--prompt", "x", "--regex", "a+", "--json-object"],
                           capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        r = subprocess.run([OGAI, "generate", STORIES, "--prompt", "Once", "--regex", "(ab|cd)e", "--json"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertIn(doc["text"], ("abe", "cde"))
        self.assertEqual(doc["finish_reason"], "eos")

    def test_length_limit_inside_a_value_is_length(self):
        fmt = {"kind": "json_schema", "text": json.dumps({"type": "array", "items": {"type": "string"},
                                                          "minItems": 50})}
        reply = RUN(package=STORIES, format=fmt, max_new_tokens=5)
        self.assertEqual(reply["results"][0]["finish_reason"], "length")


if __name__ == "__main__":
    try:
        unittest.main(verbosity=2)
    finally:
        RUN.close()
