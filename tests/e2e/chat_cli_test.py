"""End-to-end checks of `ogai chat PKG` (scripted: stdin not a terminal; and on a pseudo-terminal).

Scripted mode reads one message per line and prints each reply plainly, followed by a newline
(a reply may itself contain newlines, so expectations compare the whole output). Replies are checked against
`ogai generate` on the same rendered conversation, and against the stories260k README golden.
Usage: chat_cli_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import fcntl
import json
import os
import pty
import select
import subprocess
import sys
import termios
import time
import unittest

from cli_support import (STORIES, STORIES_PROMPT, TINY_E2B, TINY_MOE, run, stories_golden, temp_dir,
                         without_chat_template)

OGAI = sys.argv.pop(1)
GOLDEN_IDS, GOLDEN_TEXT = stories_golden()


# The CLI samples at temperature 1 when nothing says otherwise (docs/cli.md#sampling-default);
# these checks are of greedy output, so a call that names no sampling flag asks for greedy.
SAMPLING_FLAGS = ("--temperature", "--top-k", "--top-p", "--min-p", "--typical-p", "--speculative")


def greedy_unless_sampling(flags):
    return tuple(flags) if any(str(f).split("=")[0] in SAMPLING_FLAGS for f in flags) else (*flags, "--temperature", "0")


def chat(package, lines, *flags):
    return run(OGAI, "chat", package, *greedy_unless_sampling(flags), stdin="".join(l + "\n" for l in lines))


def generate_text(package, prompt, *flags):
    r = run(OGAI, "generate", package, "--prompt", prompt, "--json", *greedy_unless_sampling(flags))
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return json.loads(r.stdout)["text"]


class ScriptedStoriesTest(unittest.TestCase):
    def test_one_reply_per_message_line(self):
        r = chat(STORIES, [STORIES_PROMPT], "--max-new-tokens", "60")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, GOLDEN_TEXT + "\n")
        self.assertIn("\n", r.stdout[:-1])  # the golden's own newline is printed as it is

    def test_second_turn_continues_the_conversation(self):
        second = "Lily went home."
        r = chat(STORIES, [STORIES_PROMPT, second], "--max-new-tokens", "30")
        self.assertEqual(r.returncode, 0, r.stderr)
        first = generate_text(STORIES, STORIES_PROMPT, "--chat", "--max-new-tokens", "30")
        self.assertEqual(first, GOLDEN_TEXT[:len(first)])
        # The stories template joins the trimmed messages with newlines after "<s>".
        conversation = "\n".join([STORIES_PROMPT, first.strip(), second])
        expected = generate_text(STORIES, conversation, "--max-new-tokens", "30")
        self.assertEqual(r.stdout, first + "\n" + expected + "\n")

    def test_reset_forgets_the_conversation(self):
        r = chat(STORIES, [STORIES_PROMPT, "/reset", STORIES_PROMPT], "--max-new-tokens", "60")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, (GOLDEN_TEXT + "\n") * 2)

    def test_system_sets_the_system_message_and_clears(self):
        system = "The dog was big."
        r = chat(STORIES, [STORIES_PROMPT, "/system " + system, STORIES_PROMPT], "--max-new-tokens", "20")
        self.assertEqual(r.returncode, 0, r.stderr)
        first = generate_text(STORIES, STORIES_PROMPT, "--chat", "--max-new-tokens", "20")
        expected = generate_text(STORIES, STORIES_PROMPT, "--chat", "--system", system, "--max-new-tokens", "20")
        self.assertEqual(r.stdout, first + "\n" + expected + "\n")
        self.assertNotEqual(first, expected)

    def test_system_flag_equals_the_command(self):
        system = "The dog was big."
        a = chat(STORIES, [STORIES_PROMPT], "--system", system, "--max-new-tokens", "20")
        b = chat(STORIES, ["/system " + system, STORIES_PROMPT], "--max-new-tokens", "20")
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)

    def test_empty_lines_and_unknown_commands_print_no_reply(self):
        r = chat(STORIES, ["", "/frobnicate", "/systematic", STORIES_PROMPT, "/quit", "never read"],
                 "--max-new-tokens", "60")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, GOLDEN_TEXT + "\n")
        self.assertIn("/frobnicate", r.stderr)
        self.assertIn("/systematic", r.stderr)

    def test_sampling_flags_apply(self):
        flags = ("--max-new-tokens", "30", "--temperature", "1.0", "--seed", "11")
        a = chat(STORIES, [STORIES_PROMPT], *flags)
        b = chat(STORIES, [STORIES_PROMPT], *flags)
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)
        greedy = chat(STORIES, [STORIES_PROMPT], "--max-new-tokens", "30")
        self.assertNotEqual(a.stdout, greedy.stdout)

    def test_a_failed_message_is_reported_and_the_chat_goes_on(self):
        too_long = "Once upon a time there was a cat. " * 80
        r = chat(STORIES, [too_long, STORIES_PROMPT], "--max-new-tokens", "60")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "\n" + GOLDEN_TEXT + "\n")  # an empty line stands for the failure
        self.assertIn("512", r.stderr)


class ScriptedFixtureTest(unittest.TestCase):
    def check_package(self, package):
        flags = ("--max-new-tokens", "8")
        r = chat(package, ["hello there", "how are you", "/system Be brief.", "hello there"], *flags)
        self.assertEqual(r.returncode, 0, r.stderr)
        first = generate_text(package, "hello there", "--chat", *flags)
        last = generate_text(package, "hello there", "--chat", "--system", "Be brief.", *flags)
        self.assertTrue(r.stdout.startswith(first + "\n"), r.stdout)
        self.assertTrue(r.stdout.endswith("\n" + last + "\n"), r.stdout)
        self.assertNotIn("<end_of_turn>", r.stdout)

    def test_tiny_e2b(self):
        self.check_package(TINY_E2B)

    def test_tiny_moe(self):
        self.check_package(TINY_MOE)

    def test_package_without_a_template_fails_clearly(self):
        package = without_chat_template(TINY_E2B, temp_dir(self))
        r = chat(package, ["hello"])
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")
        self.assertIn("no chat template", r.stderr)
        self.assertIn(package, r.stderr)

    def test_unknown_package(self):
        r = chat("/nonexistent/ogai-package", ["hello"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("/nonexistent/ogai-package", r.stderr)


class Terminal:
    """The primary side of a pseudo-terminal, read as a stream: read_until consumes up to a needle."""

    def __init__(self, test, fd):
        self.test, self.fd, self.buffer = test, fd, ""

    def read_until(self, needle, timeout=60):
        deadline = time.monotonic() + timeout
        while needle not in self.buffer:
            left = deadline - time.monotonic()
            self.test.assertGreater(left, 0, f"timed out waiting for {needle!r}; saw {self.buffer!r}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                chunk = os.read(self.fd, 4096)
                self.test.assertTrue(chunk, f"ogai chat closed the terminal; saw {self.buffer!r}")
                self.buffer += chunk.decode("utf-8", "replace")
        end = self.buffer.index(needle) + len(needle)
        seen, self.buffer = self.buffer[:end], self.buffer[end:]
        return seen

    def type(self, line):
        os.write(self.fd, (line + "\r").encode())


class TerminalTest(unittest.TestCase):
    """The interactive REPL on a pseudo-terminal: banner, streamed reply, /stats, /quit."""

    def test_interactive_session(self):
        primary, secondary = pty.openpty()
        proc = subprocess.Popen([OGAI, "chat", STORIES, "--max-new-tokens", "20", "--temperature", "0"], stdin=secondary,
                                stdout=secondary, stderr=secondary, close_fds=True)
        os.close(secondary)
        term = Terminal(self, primary)
        try:
            self.assertIn("/reset", term.read_until("> "))  # the banner names the commands
            term.type(STORIES_PROMPT)
            term.read_until(GOLDEN_TEXT[:40])
            term.read_until("> ")
            term.type("/stats")
            self.assertIn("prompt 5 tokens, reply 20 tokens (length)", term.read_until("context holds"))
            term.read_until("> ")
            term.type("/quit")
            self.assertEqual(proc.wait(timeout=30), 0)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            os.close(primary)


    def test_ctrl_c_at_the_prompt_clears_the_line_and_twice_quits(self):
        primary, secondary = pty.openpty()

        def controlling_terminal():  # so that Ctrl-C on the terminal sends SIGINT, as in a shell
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        proc = subprocess.Popen([OGAI, "chat", STORIES, "--max-new-tokens", "20", "--temperature", "0"], stdin=secondary,
                                stdout=secondary,
                                stderr=secondary, close_fds=True, preexec_fn=controlling_terminal)
        os.close(secondary)
        term = Terminal(self, primary)
        try:
            term.read_until("> ")
            os.write(primary, b"some half-typed text")
            term.read_until("text")
            time.sleep(0.3)  # readline is in its terminal read (a Ctrl-C before that is not seen until the next key)
            os.write(primary, b"\x03")
            term.read_until("Ctrl-C again")
            term.read_until("> ")
            term.type(STORIES_PROMPT)  # the cleared text is not part of the message
            term.read_until(GOLDEN_TEXT[:40])
            term.read_until("> ")
            term.type("/stats")  # the conversation survived the Ctrl-C
            self.assertIn("prompt 5 tokens, reply 20 tokens", term.read_until("context holds"))
            term.read_until("> ")
            time.sleep(0.3)
            os.write(primary, b"\x03")
            term.read_until("> ")
            time.sleep(0.3)
            os.write(primary, b"\x03")
            self.assertEqual(proc.wait(timeout=30), 0)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            os.close(primary)


class CommandsTest(unittest.TestCase):
    def test_help_lists_every_command(self):
        r = chat(STORIES, ["/help"])
        self.assertEqual(r.returncode, 0, r.stderr)
        for command in ("/help", "/reset", "/system TEXT", "/stats", "/save FILE", "/load FILE", "/quit"):
            self.assertIn(command, r.stdout)

    def test_save_then_load_continues_the_same_conversation(self):
        folder = temp_dir(self)
        saved = os.path.join(folder, "chat.json")
        first = chat(STORIES, ["/system Be brief.", STORIES_PROMPT, "/save " + saved], "--max-new-tokens", "8")
        self.assertEqual(first.returncode, 0, first.stderr)
        with open(saved, encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(doc["system"], "Be brief.")
        self.assertEqual([m["role"] for m in doc["messages"]], ["user", "assistant"])
        self.assertEqual(doc["messages"][0]["content"], STORIES_PROMPT)
        # The next turn after /load equals the next turn of the conversation that never stopped.
        whole = chat(STORIES, ["/system Be brief.", STORIES_PROMPT, "Lily"], "--max-new-tokens", "8")
        loaded = chat(STORIES, ["/load " + saved, "Lily"], "--max-new-tokens", "8")
        self.assertEqual(loaded.returncode, 0, loaded.stderr)
        self.assertEqual(loaded.stdout.splitlines()[-1], whole.stdout.splitlines()[-1])

    def test_a_bad_file_leaves_the_conversation_unchanged(self):
        folder = temp_dir(self)
        bad = os.path.join(folder, "bad.json")
        with open(bad, "w", encoding="utf-8") as f:
            f.write('{"messages": [{"role": "robot", "content": "x"}]}')
        r = chat(STORIES, [STORIES_PROMPT, "/load " + bad, "/load " + bad + ".missing", "/stats"], "--max-new-tokens", "5")
        self.assertEqual(r.returncode, 1)
        self.assertIn("robot", r.stderr)
        self.assertIn("bad.json.missing", r.stderr)
        self.assertIn("the conversation is unchanged", r.stderr)
        self.assertIn("reply 5 tokens", r.stdout)


class ChatTemplateOverrideTest(unittest.TestCase):
    TEMPLATE = "{{- bos_token -}}Title: {% for m in messages %}{{ m['content'] }}{% endfor %}\n"

    @staticmethod
    def generate_chat(package, template):
        """`ogai generate --chat` with the same template and prompt (the server test checks its ids)."""
        return generate_text(package, "Lily", "--chat", "--chat-template", template, "--max-new-tokens", "12")

    def test_chat_template_file_replaces_the_package_template(self):
        path = os.path.join(temp_dir(self), "title.jinja")
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.TEMPLATE)
        r = chat(STORIES, ["Lily"], "--chat-template", path, "--max-new-tokens", "12")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, self.generate_chat(STORIES, path) + "\n")
        plain = chat(STORIES, ["Lily"], "--max-new-tokens", "12")
        self.assertNotEqual(plain.stdout, r.stdout)

    def test_a_package_without_a_template_chats_with_one(self):
        path = os.path.join(temp_dir(self), "title.jinja")
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.TEMPLATE)
        bare = without_chat_template(STORIES, temp_dir(self))
        r = chat(bare, ["Lily"], "--chat-template", path, "--max-new-tokens", "12")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, self.generate_chat(STORIES, path) + "\n")

    def test_a_missing_template_file_is_a_usage_error(self):
        r = chat(STORIES, ["Lily"], "--chat-template", "/nonexistent/t.jinja")
        self.assertEqual(r.returncode, 2, r.stderr)


if __name__ == "__main__":
    unittest.main()
