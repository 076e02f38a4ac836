"""What users of llama.cpp, vLLM and ollama type, as table tests over the `ogai` binary.

Each row of a table is an argv and the outcome it must have: the exit code and what stdout or
stderr must (and must not) hold. Covered: -m/--model PKG, a positional prompt, -p, -n,
--max-tokens, -c; every command's unknown-flag error (the nearest flag, in the order typed, never
CLI11's reversed list); unknown commands; `ogai help [COMMAND]`; --speculative's refusal;
`ogai completion bash|zsh|fish` (bash -n, zsh -n, fish --no-execute; every command listed; the bash
function completes commands, flags and the words after help/completion); the sampling default
(unset: sampled, --temperature 0: greedy, as docs/cli.md#sampling-default says).

    /usr/bin/python3 tests/e2e/cli_habits_test.py OGAI
"""
import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_support import STORIES, STORIES_PROMPT, run, stories_golden  # noqa: E402

OGAI = sys.argv.pop(1) if len(sys.argv) > 1 else None
GREEDY = ["--temperature", "0", "--threads", "1", "--json"]

# The arguments each command requires before a flag is checked (a directory serves for every
# PKG / SOURCE / PATH; any regular file for template's --messages). A command missing here fails test_every_command_is_covered.
POSITIONALS = {
    "inspect": [STORIES], "template": [STORIES, "--messages", os.path.abspath(__file__)], "parse-reply": [STORIES], "validate": [STORIES], "import": [STORIES],
    "tokenize": [STORIES], "generate": [STORIES], "run": [STORIES], "chat": [STORIES], "bench": [STORIES],
    "serve": [STORIES], "quantize": [STORIES, STORIES], "compare": [STORIES, STORIES], "help": [],
    "completion": ["bash"], "preprocess": [STORIES],
}


def commands():
    """The commands `ogai help` lists (its SUBCOMMANDS section)."""
    out = run(OGAI, "help").stdout
    section = out.split("Subcommands:", 1)[1]
    return [m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)\s", section, re.M)]


def long_flags(command):
    """The long flags `ogai COMMAND --help` lists, without --help."""
    out = run(OGAI, command, "--help").stdout
    return sorted({f for f in re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", out)} - {"--help"})


def swapped(flag):
    """A typo of `flag` (two letters in its middle swapped): edit distance 1."""
    i = len(flag) // 2
    return flag[:i] + flag[i + 1] + flag[i] + flag[i + 2:]


class Habits(unittest.TestCase):
    def ids(self, *args):
        result = run(OGAI, "-q", "generate", *args, *GREEDY)
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout)

    def test_model_prompt_and_token_flags(self):
        golden = stories_golden()[0][:8]
        # argv -> the same greedy continuation: llama.cpp (-m -p -n), vLLM/OpenAI (--model --max-tokens),
        # ollama (a positional prompt).
        table = [
            ["-m", STORIES, "-p", STORIES_PROMPT, "-n", "8"],
            ["--model", STORIES, "--prompt", STORIES_PROMPT, "--max-tokens", "8"],
            [STORIES, STORIES_PROMPT, "--max-new-tokens", "8"],
            ["-m", STORIES, STORIES_PROMPT, "-n", "8"],
            [STORIES, "-p", STORIES_PROMPT, "-n8"],
        ]
        for argv in table:
            with self.subTest(argv=argv):
                self.assertEqual(self.ids(*argv)["ids"], golden)

    def test_context_flag(self):
        # -c N caps prompt + reply at N positions (llama.cpp's -c / --ctx-size): 5 prompt ids, 3 more.
        out = self.ids(STORIES, "-p", STORIES_PROMPT, "-n", "40", "-c", "8")
        self.assertEqual(len(out["prompt_ids"]) + len(out["ids"]), 8)
        self.assertEqual(out["finish_reason"], "length")

    def test_usage_errors(self):
        # argv -> (exit code, what stderr holds)
        table = [
            (["generate", STORIES, "--max-tokns", "40"], "ogai generate: unknown flag '--max-tokns'; did you mean "
                                                         "'--max-tokens'?"),
            (["generate", STORIES, "--temprature=0.5"], "unknown flag '--temprature'; did you mean '--temperature'?"),
            (["generate", STORIES, "--frobnicate", "40"], "ogai generate: unknown flag '--frobnicate' (`ogai generate "
                                                          "--help` lists its flags)"),
            (["chat", STORIES, "--sytem", "x"], "ogai chat: unknown flag '--sytem'; did you mean '--system'?"),
            (["serve", STORIES, "--prot", "8080"], "ogai serve: unknown flag '--prot'; did you mean '--port'?"),
            (["generat", STORIES], "ogai: unknown command 'generat'; did you mean 'generate'?"),
            (["--verbos"], "ogai: unknown flag '--verbos'; did you mean '--verbose'?"),
            (["validate", STORIES, "extra"], "ogai validate: unexpected argument 'extra'"),
            (["generate", STORIES, "--speculative", "foo"], "'foo' is not a drafter; expected ngram or assistant"),
            (["generate", STORIES, "a prompt", "--prompt", "another"], "excludes"),
            (["help", "genrate"], "ogai help: unknown command 'genrate'; did you mean 'generate'?"),
            (["completion", "csh"], "'csh' is not a shell ogai completes; expected bash, zsh or fish"),
        ]
        for argv, message in table:
            with self.subTest(argv=argv):
                result = run(OGAI, *argv)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(message, result.stderr)
                self.assertNotIn("The following argument", result.stderr)
                self.assertNotIn("{", result.stderr)  # no CLI11 map of the enum's values

    def test_two_unknown_flags_in_the_order_typed(self):
        result = run(OGAI, "generate", STORIES, "--aaa-flag", "1", "--zzz-flag")
        self.assertEqual(result.returncode, 2)
        self.assertLess(result.stderr.index("--aaa-flag"), result.stderr.index("--zzz-flag"), result.stderr)

    def test_every_command_is_covered(self):
        self.assertEqual(sorted(commands()), sorted(POSITIONALS))

    def test_every_command_suggests_its_nearest_flag(self):
        for command in commands():
            flag = max(long_flags(command) or ["--help"], key=len)
            with self.subTest(command=command, flag=flag):
                result = run(OGAI, command, *POSITIONALS[command], swapped(flag))
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(f"unknown flag '{swapped(flag)}'; did you mean '{flag}'?", result.stderr)

    def test_help_command(self):
        listing = run(OGAI, "help")
        self.assertEqual(listing.returncode, 0, listing.stderr)
        self.assertEqual(listing.stdout, run(OGAI, "--help").stdout)
        for command in commands():
            with self.subTest(command=command):
                ours = run(OGAI, "help", command)
                self.assertEqual(ours.returncode, 0, ours.stderr)
                self.assertEqual(ours.stdout, run(OGAI, command, "--help").stdout)

    def test_sampling_default(self):
        # No sampling flag: sampled at temperature 1 (two seeds differ); --temperature 0: greedy.
        base = ["-q", "generate", STORIES, "-p", STORIES_PROMPT, "-n", "24", "--json"]
        a = json.loads(run(OGAI, *base, "--seed", "1").stdout)["ids"]
        b = json.loads(run(OGAI, *base, "--seed", "2").stdout)["ids"]
        self.assertNotEqual(a, b)
        self.assertNotEqual(a, stories_golden()[0][:24])
        greedy = json.loads(run(OGAI, *base, "--seed", "1", "--temperature", "0").stdout)["ids"]
        self.assertEqual(greedy, stories_golden()[0][:24])
        self.assertIn("else temperature 1", run(OGAI, "generate", "--help").stdout)


class Completion(unittest.TestCase):
    def script(self, shell):
        result = run(OGAI, "completion", shell)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout

    def test_scripts_parse_and_list_every_command(self):
        checks = {"bash": ["bash", "-n"], "zsh": ["zsh", "-n"], "fish": ["fish", "--no-execute"]}
        for shell, check in checks.items():
            with self.subTest(shell=shell):
                text = self.script(shell)
                parsed = subprocess.run(check, input=text, capture_output=True, text=True)
                self.assertEqual(parsed.returncode, 0, parsed.stderr)
                for command in commands():
                    self.assertRegex(text, rf"(^|[\s'(]){re.escape(command)}[)\s:']", f"{shell}: {command}")
                for flag in long_flags("generate"):
                    self.assertIn(flag[2:], text, f"{shell}: {flag}")

    def test_fish_marks_the_flags_that_take_a_value(self):
        lines = self.script("fish").splitlines()
        stream = [l for l in lines if "seen_subcommand_from generate'" in l and " -l stream " in l]
        tokens = [l for l in lines if "seen_subcommand_from generate'" in l and " -l max-new-tokens " in l]
        self.assertEqual(len(stream), 1, lines)
        self.assertNotIn(" -r ", stream[0])
        self.assertEqual(len(tokens), 1, lines)
        self.assertIn(" -r ", tokens[0])

    def complete(self, *words):
        """COMPREPLY of the bash function for `ogai words...` (the last word is being typed)."""
        line = " ".join(["ogai", *words])
        probe = (f"{self.script('bash')}\nCOMP_WORDS=(ogai {' '.join(words)}); COMP_CWORD={len(words)}; "
                 f"COMP_LINE='{line}'; _ogai; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        result = subprocess.run(["bash", "-c", probe], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout.split()

    def test_bash_function_completes(self):
        table = [
            (["gen"], ["generate"]),
            (["generate", "--max-new"], ["--max-new-tokens"]),
            (["-v", "ser"], ["serve"]),
            (["help", "comp"], ["compare", "completion"]),
            (["completion", "z"], ["zsh"]),
            (["serve", "--no-web"], ["--no-webui"]),
        ]
        for words, expected in table:
            with self.subTest(words=words):
                self.assertEqual(sorted(self.complete(*words)), sorted(expected))


if __name__ == "__main__":
    if OGAI is None:
        sys.exit(__doc__)
    unittest.main()
