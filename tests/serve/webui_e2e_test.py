"""`ogai serve`'s chat page and its prefix-less routes over real HTTP (docs/serve.md "Chat page").

GET / and /webui/NAME answer the embedded files with their Content-Type, the Content-Security-Policy
and cache headers; --no-webui turns them into 404s; with --api-key the page itself is served
without the key while every API call it makes needs it; the OpenAI routes answer without /v1 too,
with the same answers; the startup line names the page's URL. (The page in a real browser:
webui_browser_e2e.cjs.)
    python3 webui_e2e_test.py OGAI_EXE
"""
import json
import os
import re
import subprocess
import sys
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from cli_support import STORIES  # noqa: E402

OGAI = sys.argv[1] if len(sys.argv) > 1 else "ogai"
KEY = "sk-webui-test-key-0123"
SOURCE = os.environ["OGAI_SOURCE_DIR"]


class Server:
    """`ogai serve STORIES --port 0 ...` until stop(); `url` once it printed its address."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([OGAI, "serve", STORIES, "--port", "0", "--temperature", "0", "--no-access-log",
                                      *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.startup = ""
        for line in self.proc.stderr:
            self.startup += line
            if "listening on" in line:
                break
        m = re.search(r"listening on (http://[^\s:]+:\d+) ", self.startup)
        if not m:
            self.proc.kill()
            raise AssertionError(f"ogai serve did not start:\n{self.startup}")
        self.url = m.group(1)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.proc.stderr.close()


def call(url, method="GET", body=None, headers=None):
    """(status, headers, body bytes) of one request; HTTP errors are answers, not exceptions."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            return res.status, res.headers, res.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def source_file(name):
    with open(os.path.join(SOURCE, "src", "serve", "webui", name), "rb") as f:
        return f.read()


class PageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_startup_line_names_the_page(self):
        port = self.server.url.rsplit(":", 1)[1]
        self.assertIn(f"chat page: http://127.0.0.1:{port}/", self.server.startup)

    def test_index_is_html_with_a_strict_policy(self):
        status, headers, body = call(self.server.url + "/")
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "text/html; charset=utf-8")
        csp = headers["Content-Security-Policy"]
        for directive in ("default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
                          "frame-ancestors 'none'", "base-uri 'none'"):
            self.assertIn(directive, csp)
        self.assertNotIn("unsafe-inline", csp)
        self.assertNotIn("unsafe-eval", csp)
        self.assertEqual(headers["X-Content-Type-Options"], "nosniff")
        self.assertEqual(headers["Cache-Control"], "no-cache")
        page = body.decode()
        self.assertIn("<title>ogai chat</title>", page)
        self.assertNotIn("@ASSET_VERSION@", page)
        self.assertEqual(call(self.server.url + "/index.html")[2], body)
        # No inline script or style (the policy would block them) and nothing from another host.
        self.assertIsNone(re.search(r"<script(?![^>]*\bsrc=)", page))
        self.assertIsNone(re.search(r"\sstyle=|<style", page))
        self.assertIsNone(re.search(r"(src|href)=\"(https?:)?//", page))

    def test_every_asset_the_page_names_is_served_as_written(self):
        page = call(self.server.url + "/")[2].decode()
        refs = re.findall(r"(?:src|href)=\"(/webui/[^\"]+)\"", page)
        self.assertEqual(sorted(r.split("?")[0] for r in refs),
                         ["/webui/app.js", "/webui/icon.svg", "/webui/markdown.js", "/webui/style.css"])
        types = {"js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8", "svg": "image/svg+xml"}
        for ref in refs:
            self.assertRegex(ref, r"\?v=[0-9a-f]{12}$")
            status, headers, body = call(self.server.url + ref)
            self.assertEqual(status, 200, ref)
            self.assertEqual(headers["Content-Type"], types[ref.split("?")[0].rsplit(".", 1)[1]], ref)
            self.assertEqual(headers["Cache-Control"], "public, max-age=31536000, immutable", ref)
            self.assertEqual(body, source_file(ref.split("?")[0].rsplit("/", 1)[1]), ref)

    def test_head_unknown_file_and_wrong_method(self):
        status, headers, body = call(self.server.url + "/", method="HEAD")
        self.assertEqual((status, body), (200, b""))
        self.assertGreater(int(headers["Content-Length"]), 1000)
        status, _, body = call(self.server.url + "/webui/missing.js")
        self.assertEqual(status, 404)
        self.assertEqual(json.loads(body)["error"]["code"], "not_found")
        status, headers, _ = call(self.server.url + "/", method="POST", body={})
        self.assertEqual(status, 405)
        self.assertEqual(headers["Allow"], "GET, HEAD")

    def test_routes_answer_without_v1(self):
        url = self.server.url
        chat = {"model": "stories260k", "messages": [{"role": "user", "content": "Once"}], "max_tokens": 8}
        prefixed = call(url + "/v1/chat/completions", "POST", chat)
        bare = call(url + "/chat/completions", "POST", chat)
        self.assertEqual((prefixed[0], bare[0]), (200, 200), bare[2])
        self.assertEqual(json.loads(bare[2])["choices"][0]["message"], json.loads(prefixed[2])["choices"][0]["message"])
        completion = {"model": "stories260k", "prompt": "Once upon a time", "max_tokens": 8}
        self.assertEqual(json.loads(call(url + "/completions", "POST", completion)[2])["choices"][0]["text"],
                         json.loads(call(url + "/v1/completions", "POST", completion)[2])["choices"][0]["text"])
        status, _, body = call(url + "/models")
        self.assertEqual((status, json.loads(body)["data"][0]["id"]), (200, "stories260k"))
        status, _, body = call(url + "/models/stories260k")
        self.assertEqual((status, json.loads(body)["id"]), (200, "stories260k"))
        # stories260k has no hidden-state output: both paths reach the embeddings route and its 400.
        embed = {"model": "stories260k", "input": "Once"}
        bare, prefixed = call(url + "/embeddings", "POST", embed), call(url + "/v1/embeddings", "POST", embed)
        self.assertEqual((bare[0], bare[2]), (400, prefixed[2]))
        status, _, body = call(url + "/messages", "POST", {"model": "stories260k", "max_tokens": 4,
                                                          "messages": [{"role": "user", "content": "Once"}]})
        self.assertEqual((status, json.loads(body)["type"]), (200, "message"), body)
        # A route that is not there with or without the prefix is still a 404 naming the path as sent.
        status, _, body = call(url + "/nothing/here")
        self.assertEqual(status, 404)
        self.assertIn("/nothing/here", json.loads(body)["error"]["message"])
        status, headers, _ = call(url + "/chat/completions")
        self.assertEqual((status, headers["Allow"]), (405, "POST"))


class NoWebuiTest(unittest.TestCase):
    def test_no_webui_answers_404(self):
        server = Server("--no-webui")
        try:
            self.assertIn("chat page: off (--no-webui)", server.startup)
            for path in ("/", "/index.html", "/webui/app.js"):
                status, headers, body = call(server.url + path)
                self.assertEqual(status, 404, path)
                self.assertEqual(headers["Content-Type"], "application/json")
                self.assertEqual(json.loads(body)["error"]["code"], "not_found")
            self.assertEqual(call(server.url + "/models")[0], 200)
        finally:
            server.stop()


class ApiKeyTest(unittest.TestCase):
    def test_page_is_open_and_the_api_needs_the_key(self):
        server = Server("--api-key", KEY)
        try:
            for path in ("/", "/webui/app.js", "/webui/style.css"):
                self.assertEqual(call(server.url + path)[0], 200, path)
            bearer = {"Authorization": f"Bearer {KEY}"}
            chat = {"model": "stories260k", "messages": [{"role": "user", "content": "Once"}], "max_tokens": 2}
            for path, method, body in (("/v1/models", "GET", None), ("/models", "GET", None),
                                       ("/chat/completions", "POST", chat), ("/v1/chat/completions", "POST", chat)):
                status, headers, answer = call(server.url + path, method, body)
                self.assertEqual(status, 401, path)
                self.assertEqual(json.loads(answer)["error"]["code"], "invalid_api_key", path)
                self.assertEqual(call(server.url + path, method, body, bearer)[0], 200, path)
            self.assertEqual(call(server.url + "/models", headers={"Authorization": "Bearer wrong"})[0], 401)
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
