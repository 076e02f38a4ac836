"""Renders template cases with Python Jinja2 set up as Hugging Face transformers sets it up for
apply_chat_template: a sandboxed immutable environment with trim_blocks and lstrip_blocks, the
loop-controls extension, a {% generation %} block that renders its body, and the globals/filters
raise_exception, strftime_now and tojson (json.dumps with ensure_ascii=False by default).

    /usr/bin/python3 jinja2_render.py [--peer-string-methods] CASES.json   ->   a JSON array of results

Each case is {"template": TEXT, "variables": {...}}; each result {"ok": true, "output": TEXT} or
{"ok": false, "error": MESSAGE}. Used by the differential tests where @huggingface/jinja has no
answer (it raises) and ogai follows Jinja.

--peer-string-methods gives str.strip/lstrip/rstrip @huggingface/jinja's meaning (they ignore a
characters argument and strip JavaScript whitespace), which ogai keeps because that engine defines
it; used when a whole real template is compared after the JavaScript engine failed elsewhere in it.
"""
import datetime
import json
import sys

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment


class GenerationBlock(jinja2.ext.Extension):
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render"), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return datetime.datetime.now().strftime(fmt)


JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
           "\u2028\u2029\u202f\u205f\u3000\ufeff"


class PeerStringMethods(ImmutableSandboxedEnvironment):
    def getattr(self, obj, attribute):
        if isinstance(obj, str) and attribute in ("strip", "lstrip", "rstrip"):
            method = getattr(obj, attribute)
            return lambda *args, **kwargs: method(JS_SPACE)
        return super().getattr(obj, attribute)


def environment(peer_string_methods):
    cls = PeerStringMethods if peer_string_methods else ImmutableSandboxedEnvironment
    env = cls(trim_blocks=True, lstrip_blocks=True, extensions=[GenerationBlock, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def render(env, case):
    try:
        return {"ok": True, "output": env.from_string(case["template"]).render(**case.get("variables", {}))}
    except Exception as e:  # noqa: BLE001 - every template failure is a result here
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}


def main():
    args = sys.argv[1:]
    peer_string_methods = "--peer-string-methods" in args
    with open([a for a in args if not a.startswith("--")][0], encoding="utf-8") as f:
        cases = json.load(f)
    env = environment(peer_string_methods)
    json.dump([render(env, c) for c in cases], sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
