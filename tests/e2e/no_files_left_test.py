"""Issue 12 finding 15: an ogai run leaves no file behind.

ONNX Runtime's Linux build starts a telemetry system with its environment that writes
$TMPDIR/mat-debug-PID.log, $TMPDIR/.ses and a database under
$XDG_CACHE_HOME (or ~/.cache)/Microsoft/DeveloperTools/.onnxruntime/. ogai turns it off unless
OGAI_ORT_TELEMETRY=1. Each command runs with HOME, TMPDIR and XDG_CACHE_HOME pointing at empty
folders, which must still be empty afterwards; the opt-in run proves the check can fail.
Usage: no_files_left_test.py OGAI_EXE (OGAI_SHARED_DIR, OGAI_SOURCE_DIR, OGAI_BINARY_DIR set).
"""
import os
import sys
import unittest

from cli_support import STORIES, STORIES_PROMPT, TINY_E2B, run, temp_dir

OGAI = sys.argv.pop(1)


def files_under(root):
    found = []
    for parent, dirs, files in os.walk(root):
        found += [os.path.relpath(os.path.join(parent, n), root) for n in dirs + files]
    return sorted(found)


class NoFilesLeftBehind(unittest.TestCase):
    def run_isolated(self, *args, extra_env=None):
        """Runs ogai with empty HOME/TMPDIR/XDG_CACHE_HOME; returns (result, files left in them)."""
        root = temp_dir(self)
        dirs = {k: os.path.join(root, k.lower()) for k in ("HOME", "TMPDIR", "XDG_CACHE_HOME")}
        for d in dirs.values():
            os.mkdir(d)
        # Without CI too: ONNX Runtime's telemetry stays off by itself when CI is set (as on the CI
        # machine), which would make both the default check and the opt-in check pass or fail for
        # the wrong reason.
        env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "OGAI_ORT_TELEMETRY", "CI")}
        env.update(dirs)
        env.update(extra_env or {})
        result = run(OGAI, *args, env=env)
        return result, files_under(root)

    def assert_leaves_nothing(self, *args):
        result, left = self.run_isolated(*args)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(left, ["home", "tmpdir", "xdg_cache_home"], f"ogai {' '.join(args)} left files behind")

    def test_generate_leaves_nothing(self):
        self.assert_leaves_nothing("generate", STORIES, "--prompt", STORIES_PROMPT, "--max-new-tokens", "4")

    def test_generate_stream_on_another_package_leaves_nothing(self):
        self.assert_leaves_nothing("generate", TINY_E2B, "--prompt", "hi", "--max-new-tokens", "3", "--stream")

    def test_version_leaves_nothing(self):
        self.assert_leaves_nothing("--version")

    def test_telemetry_opt_in_restores_onnxruntime_default(self):
        result, left = self.run_isolated("generate", STORIES, "--prompt", STORIES_PROMPT, "--max-new-tokens", "2",
                                         extra_env={"OGAI_ORT_TELEMETRY": "1"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(any(p.startswith(os.path.join("tmpdir", "mat-debug-")) for p in left), left)


if __name__ == "__main__":
    unittest.main()
