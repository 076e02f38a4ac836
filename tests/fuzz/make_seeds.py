"""Writes the fuzz targets' seed corpora from ../shared and tests/data (nothing is committed).

Usage: make_seeds.py SOURCE_DIR SHARED_DIR OUT_DIR
OUT_DIR/<target>/ gets small seeds: tokenizer.json files cut down to a few hundred vocabulary
entries (merges kept only where both parts and the result survive) so libFuzzer mutates them
quickly; chat templates as files and as the chat_template strings of tokenizer_config.json; chat
JSON documents; metadata documents.
"""
import glob
import json
import os
import sys

source, shared, out = sys.argv[1:4]


def write(target, name, text):
    os.makedirs(os.path.join(out, target), exist_ok=True)
    with open(os.path.join(out, target, name), "w", encoding="utf-8") as f:
        f.write(text)


def small_tokenizer(doc, keep=300):
    model = doc.get("model") or {}
    vocab = model.get("vocab")
    if isinstance(vocab, dict):
        kept = dict(sorted(vocab.items(), key=lambda kv: kv[1])[:keep])
        model["vocab"] = kept
        merges = model.get("merges") or []
        def parts(m):
            return m.split(" ", 1) if isinstance(m, str) else m
        model["merges"] = [m for m in merges if len(parts(m)) == 2 and all(p in kept for p in parts(m))
                           and "".join(parts(m)).replace(model.get("continuing_subword_prefix") or "\0", "") in kept][:200]
    elif isinstance(vocab, list):
        model["vocab"] = vocab[:keep]
        if isinstance(model.get("unk_id"), int) and model["unk_id"] >= keep:
            model["unk_id"] = 0
    top = max([v for v in (model.get("vocab") or {}).values()] if isinstance(model.get("vocab"), dict) else [keep], default=0)
    doc["added_tokens"] = [t for t in doc.get("added_tokens") or [] if t.get("id", 0) <= top + 50][:20]
    return json.dumps(doc, ensure_ascii=False)


tokenizers = sorted(glob.glob(os.path.join(shared, "tokenizers", "*", "tokenizer.json")))
tokenizers += [os.path.join(shared, "models", "stories260k", "tokenizer.json")]
tokenizers += sorted(glob.glob(os.path.join(source, "tests", "data", "packages", "*", "tokenizer.json")))
for i, path in enumerate(tokenizers):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    write("tokenizer_fuzz", f"{i:02d}_{os.path.basename(os.path.dirname(path))}.json", small_tokenizer(doc))

configs = sorted(glob.glob(os.path.join(shared, "chat_templates", "*.json")))
configs += sorted(glob.glob(os.path.join(shared, "tokenizers", "*", "tokenizer_config.json")))
configs += sorted(glob.glob(os.path.join(source, "tests", "data", "packages", "*", "tokenizer_config.json")))
templates = sorted(glob.glob(os.path.join(shared, "chat_templates", "*.jinja")))
templates += sorted(glob.glob(os.path.join(source, "tests", "data", "packages", "*", "chat_template.jinja")))
for i, path in enumerate(templates):
    with open(path, encoding="utf-8") as f:
        write("jinja_fuzz", f"{i:02d}_{os.path.basename(path)}", f.read())
for i, path in enumerate(configs):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    write("chat_json_fuzz", f"{i:02d}_{os.path.basename(path)}", text)
    value = json.loads(text).get("chat_template")
    for j, t in enumerate(value if isinstance(value, list) else [value]):
        t = t.get("template") if isinstance(t, dict) else t
        if isinstance(t, str):
            write("jinja_fuzz", f"cfg{i:02d}_{j}.jinja", t)
write("chat_json_fuzz", "messages.json", json.dumps([
    {"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": [1, 2.5, True]}}}]},
    {"role": "tool", "content": "42", "tool_call_id": "c1"}]))

metadata = sorted(glob.glob(os.path.join(shared, "conformance", "metadata", "catalogue", "*.yaml")))
metadata += sorted(glob.glob(os.path.join(shared, "conformance", "metadata", "fixtures", "*", "inference_metadata.yaml")))
metadata += sorted(glob.glob(os.path.join(source, "tests", "data", "packages", "*", "inference_metadata.yaml")))
for i, path in enumerate(metadata):
    with open(path, encoding="utf-8") as f:
        write("metadata_fuzz", f"{i:02d}_{os.path.basename(os.path.dirname(path))}_{os.path.basename(path)}", f.read())

requests = [
    {"model": "m", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
     "max_tokens": 8, "temperature": 0.7, "top_p": 0.9, "seed": 3, "stop": ["\n", "END"], "stream": True,
     "stream_options": {"include_usage": True}, "logprobs": True, "top_logprobs": 2, "logit_bias": {"5": -100}},
    {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}], "n": 2,
     "response_format": {"type": "json_schema", "json_schema": {"name": "s", "strict": True, "schema": {
         "type": "object", "properties": {"a": {"type": "string", "pattern": "^[a-z]{1,4}$"},
                                          "b": {"type": "array", "items": {"enum": [1, "x", None]}, "maxItems": 3}},
         "required": ["a"], "additionalProperties": False}}}},
    {"model": "m", "messages": [{"role": "user", "content": "x"}], "response_format": {"type": "json_object"}},
    {"model": "m", "prompt": "Once upon", "max_tokens": 0, "echo": True, "logprobs": 3},
    {"model": "m", "prompt": [1, 2, 3], "top_k": 5, "min_p": 0.1, "repetition_penalty": 1.1, "ignore_eos": True},
    # Issue 28: shapes at the per-field budgets (stop, logit_bias, tools, messages).
    {"model": "m", "prompt": "x", "stop": ["s%d" % i for i in range(17)]},
    {"model": "m", "prompt": "x", "stop": ["y" * 300] * 14, "logit_bias": {str(i): 1 for i in range(1025)}},
    {"model": "m", "messages": [{"role": "user", "content": "x"}] * 2049,
     "tools": [{"type": "function", "function": {"name": "f%d" % i, "parameters": {"type": "object"}}} for i in range(3)]},
]
for i, r in enumerate(requests):
    write("request_json_fuzz", f"{i:02d}_request.json", json.dumps(r))

# The request model's media parts (chat image_url / input_audio, Responses input_image, Messages image).
png = "iVBORw0KGgo="
media_requests = [
    {"model": "m", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "x"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64," + png}},
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]}]},
    {"model": "m", "input": [{"role": "user", "content": [
        {"type": "input_image", "image_url": "data:image/png;base64," + png},
        {"type": "input_file", "file_data": "data:audio/wav;base64,UklGRg=="}]}]},
    {"model": "m", "max_tokens": 4, "messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}]}]},
]
for i, r in enumerate(media_requests):
    write("request_json_fuzz", f"media_{i:02d}.json", json.dumps(r))
form = ("multipart/form-data; boundary=b\n--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nm\r\n"
        "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\n"
        "RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\x3e\x00\x00\x00\x7d\x00\x00\x02\x00\x10\x00"
        "data\x00\x00\x00\x00\r\n--b\r\nContent-Disposition: form-data; name=\"response_format\"\r\n\r\nsrt\r\n--b--\r\n")
write("multipart_fuzz", "00_form", form)


def http_request(path, body, extra=""):
    return f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{extra}Content-Length: {len(body.encode())}\r\n\r\n{body}"

body = json.dumps(requests[0])
chunked = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + \
    f"{len(body[:10]):x}\r\n{body[:10]}\r\n{len(body[10:]):x}\r\n{body[10:]}\r\n0\r\n\r\n"
write("http_fuzz", "00_post", http_request("/v1/chat/completions", body))
write("http_fuzz", "01_chunked", chunked)
write("http_fuzz", "02_pipelined", "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n" + http_request("/stream", body) + "GET /health HTTP/1.0\r\n\r\n")
write("http_fuzz", "03_expect", http_request("/v1/completions", '{"model":"m","prompt":"a"}', "Expect: 100-continue\r\n"))
write("http_fuzz", "04_partial", "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"model\"")
# Issue 28: RFC 9112's MUSTs (absolute form, Host, codings, Authorization, Content-Encoding).
write("http_fuzz", "05_absolute", http_request("http://x:8080/v1/completions", '{"model":"m","prompt":"a"}'))
write("http_fuzz", "06_hosts", "GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\nGET /health HTTP/1.1\r\n\r\n")
write("http_fuzz", "07_codings", chunked.replace("Transfer-Encoding: chunked", "Transfer-Encoding: gzip, chunked"))
write("http_fuzz", "08_te_lines", chunked.replace("Transfer-Encoding: chunked", "Transfer-Encoding: identity\r\nTransfer-Encoding: chunked"))
write("http_fuzz", "09_auth_ce", http_request("/v1/completions", '{"model":"m","prompt":"a"}',
                                              "Authorization: Bearer a\r\nAuthorization: Bearer b\r\nContent-Encoding: gzip\r\n"))

# image_decode_fuzz: one small image per format and mode, made with Debian's Pillow.
import io  # noqa: E402
try:
    from PIL import Image
except ImportError:  # Pillow missing: the target starts from an empty corpus
    Image = None
if Image is not None:
    os.makedirs(os.path.join(out, "image_decode_fuzz"), exist_ok=True)
    base = Image.new("RGB", (13, 9))
    base.putdata([((x * 19) % 256, (y * 28) % 256, (x * y) % 256) for y in range(9) for x in range(13)])
    exif = Image.Exif()
    exif[0x0112] = 6
    images = {"rgb.png": (base, "PNG", {}), "palette.png": (base.convert("P"), "PNG", {}),
              "gray.jpg": (base.convert("L"), "JPEG", {}), "exif.jpg": (base, "JPEG", {"exif": exif.tobytes()}),
              "progressive.jpg": (base, "JPEG", {"progressive": True}), "cmyk.jpg": (base.convert("CMYK"), "JPEG", {}),
              "lossy.webp": (base, "WEBP", {}), "alpha.webp": (base.convert("RGBA"), "WEBP", {"lossless": True}),
              "frame.gif": (base, "GIF", {}), "rgb.bmp": (base, "BMP", {}), "palette.bmp": (base.convert("P"), "BMP", {})}
    for name, (im, fmt, kw) in images.items():
        buf = io.BytesIO()
        im.save(buf, fmt, **kw)
        with open(os.path.join(out, "image_decode_fuzz", name), "wb") as f:
            f.write(buf.getvalue())

# Issue 37: parse-reply through every built-in template (the first byte picks it: index i of
# builtin_template_names()), and the JSON files `ogai import` reads (first byte: 0 genai_config.json,
# 1 tokenizer.json), each with shapes nested past the depth budget.
deep = "[" * 100000 + "]" * 100000
reply_shapes = {
    0: '<tool_call>{"name": "f", "arguments": %s}</tool_call>',
    1: "<think>a</think><tool_call>\n<function=f>\n<parameter=x>\n%s\n</parameter>\n</function>\n</tool_call>",
    2: '<|python_tag|>{"name": "f", "parameters": %s}',
    3: '[TOOL_CALLS][{"name": "f", "arguments": %s}]',
    4: "<|channel|>analysis<|message|>hm<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>%s<|call|>",
    5: "<think>a</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n%s\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    6: '<|START_THINKING|>a<|END_THINKING|><|START_ACTION|>[{"tool_name": "f", "parameters": %s}]<|END_ACTION|>',
    7: '<|channel>thought\nhm<channel|>ok<|tool_call>call:f%s<tool_call|>',
}
for i, shape in reply_shapes.items():
    args = '{a:<|"|>x<|"|>,n:[1,{b:null}]}' if i == 7 else '{"city": "Paris", "n": [1, 2.5, true, null]}'
    write("reply_fuzz", f"{i:02d}_reply", chr(i) + shape % args)
    write("reply_fuzz", f"{i:02d}_deep", chr(i) + shape % ("{a:" + deep + "}" if i == 7 else deep))
genai_configs = sorted(glob.glob(os.path.join(source, "tests", "data", "genai", "*", "genai_config.json")))
genai_configs += sorted(glob.glob(os.path.join(shared, "ortgenai", "*", "genai_config.json")))
for i, path in enumerate(genai_configs):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    write("import_fuzz", f"{i:02d}_genai_config.json", "\0" + text)
    if i == 0:
        write("import_fuzz", "deep_genai_config.json", "\0" + text.replace("{", '{"deep": ' + deep + ",", 1))
for i, path in enumerate(tokenizers[:4]):
    with open(path, encoding="utf-8") as f:
        write("import_fuzz", f"{i:02d}_tokenizer.json", "\1" + small_tokenizer(json.load(f)))
write("import_fuzz", "deep_tokenizer.json", "\1" + '{"model": {"type": "BPE", "vocab": ' + deep + "}}")
# Issue 37: the Responses store's id lookup (responses_store_fuzz): programs of operations, each
# one byte (low 2 bits: 0 put, 1 get, 2 response, 3 get under every owner; bits 2+: owner % 3),
# a 16-bit id length, the id's bytes, and for a put one byte of content length.
def op(code, owner, ident, content=None):
    data = bytes([code | owner << 2]) + len(ident).to_bytes(2, "big") + ident
    return data + (bytes([content]) if content is not None else b"")


def write_bytes(target, name, data):
    os.makedirs(os.path.join(out, target), exist_ok=True)
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data)


resp = b"resp_" + b"0123456789abcdef" * 2
write_bytes("responses_store_fuzz", "00_put_get", op(0, 1, resp, 40) + op(1, 1, resp) + op(2, 1, resp) + op(1, 2, resp) + op(3, 0, resp))
write_bytes("responses_store_fuzz", "01_evict", b"".join(op(0, i % 3, b"resp_%d" % i, 200) for i in range(12)) + op(3, 0, b"resp_0"))
write_bytes("responses_store_fuzz", "02_odd_ids", op(0, 0, b"\xff\x00%2F../x", 1) + op(1, 0, b"\xff\x00%2F../x") + op(1, 0, b"x" * 60000))
