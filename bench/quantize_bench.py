"""`ogai quantize` speed and accuracy on a ~100M-parameter Llama-style model built at bench time,
optionally against llama.cpp's own quantization of the same weights.

    /usr/bin/python3 bench/quantize_bench.py OGAI [--work DIR] [--pairs N] [--gen N] [--prompt-len N]
        [--threads 1,2] [--configs 32:4,64:4,128:4,32:0] [--tokens N] [--no-lm-head] [--reuse] [--vocab N]
        [--llama-cpp BINS_DIR] [--llama-formats Q4_0,Q4_K_M]

A configuration is BLOCK:LEVEL[:hBITS][:eBITS]: the block size and accuracy level of every MatMul,
then optionally the lm-head's precision (h8 = 8-bit, the default unless --no-lm-head; h4 = 4-bit;
h32 = left fp32) and the token embedding's (e4 / e8; default left fp32). --vocab N builds the model
with an N-id vocabulary (embedding and lm-head N x 768) instead of 512, where the head's precision
matters (a 32k head is 98 MB in fp32).

tools/genai/builder_llama.py --bench writes the fp32 folder (random weights from a fixed seed;
stories260k's tokenizer). Each configuration is quantized (symmetric) and its accuracy measured with
`ogai compare fp32 q --tokens N --threads 1` (greedy agreement under teacher forcing, mean/max KL,
first divergence). Speed: every round runs `ogai bench` (the same prompt ids, N generated) once on
the fp32 source and on every package, in an order reversed every other round; decode and prefill
tokens/s are medians, and the ratios the medians of the per-round ratios against the fp32 package
(and against llama.cpp's Q4_0 when present).

--llama-cpp: llama.cpp's prebuilt CPU library from the npm package @node-llama-cpp/linux-x64
(bench/llama_cpp_peer.py). The fp32 model is written as an F32 GGUF (bench/gguf_write.py; its greedy
tokens equal ogai's fp32 ones), quantized by llama.cpp's own llama_model_quantize to each of
--llama-formats (its defaults: the output tensor at Q6_K, the rest at the format), and timed in the
same rounds (prompt in one batch, then greedy steps, the same thread count). Its KL is against its own
F32 model over the same prompts and positions (ogai compare's four prompts, tokenized by ogai).

Prints one row per package and thread count, and the load average before and after: the ratios are
paired, but a loaded machine compresses them (docs/quantize.md). Opt-in: not part of CI (minutes,
~2 GB of disk). bench/matmulnbits_bench measures the 4-bit kernel alone on the same shapes.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(*args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def bench(ogai, pkg, threads, prompt, gen):
    out = run(ogai, "bench", pkg, "--threads", str(threads), "--prompt-ids", json.dumps(prompt), "--gen", str(gen),
              "--runs", "1", "--json")
    j = json.loads(out)
    return j["decode_tok_s"], j["prefill_tok_s"]


def paired(runners, threads, args):
    """runners: {name: callable(threads) -> (decode, prefill)}. Every round runs each once, in an
    order reversed every other round; per-round ratios against "fp32" (ogai's fp32 package) and,
    when present, "llama.cpp Q4_0"."""
    rows = {name: [] for name in runners}
    names = list(runners)
    for i in range(args.pairs):
        for name in (names if i % 2 == 0 else names[::-1]):
            rows[name].append(runners[name](threads))
    med = statistics.median
    out = {}
    for name, runs in rows.items():
        ratio = lambda ref, k: med([r[k] / b[k] for b, r in zip(rows[ref], runs)]) if ref in rows else None
        out[name] = (med([r[0] for r in runs]), ratio("fp32", 0), ratio("llama.cpp Q4_0", 0),
                     med([r[1] for r in runs]), ratio("fp32", 1))
    return out


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def parse_config(config, no_lm_head):
    block, level, *parts = config.split(":")
    head = "32" if no_lm_head else "8"
    embedding = "32"
    for part in parts:
        if part[:1] == "h" and part[1:] in ("4", "8", "32"):
            head = part[1:]
        elif part[:1] == "e" and part[1:] in ("4", "8"):
            embedding = part[1:]
        else:
            sys.exit(f"{config}: {part!r} is not hBITS (h4, h8, h32) or eBITS (e4, e8)")
    return block, level, head, embedding


def dir_mib(path):
    if os.path.isfile(path):
        return os.path.getsize(path) / 2**20
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path)) / 2**20


def ogai_packages(args, base, tag):
    """{row label: (package dir, size MiB, compare result)} for each --configs entry."""
    out = {}
    for config in args.configs.split(","):
        block, level, head, embedding = parse_config(config, args.no_lm_head)
        name = f"{tag}b{block}-l{level}-h{head}-e{embedding}"
        q4 = os.path.join(args.work, f"llama100m-q4-{name}")
        flags = ["--block-size", block, "--accuracy-level", level, "--force"]
        flags += ["--lm-head-bits", head] if head != "32" else ["--no-lm-head"]
        flags += [] if embedding == "32" else ["--embeddings-bits", embedding]
        cached = os.path.join(args.work, f"compare-{name}-t{args.tokens}.json")
        if not (args.reuse and os.path.exists(os.path.join(q4, "model.onnx"))):
            run(args.ogai, "quantize", base, q4, *flags)
        if not (args.reuse and os.path.exists(cached)):
            with open(cached, "w") as f:
                f.write(run(args.ogai, "compare", base, q4, "--tokens", str(args.tokens), "--threads", "1", "--json"))
        with open(cached) as f:
            out[f"ogai {block}/{level} h{head} e{embedding}"] = (q4, dir_mib(q4), json.loads(f.read()))
    return out


def llama_cpp_models(args, base, tag, vocab):
    """{row label: (gguf path, size MiB, compare result against llama.cpp's own F32)}, the peer, the
    loaded models."""
    sys.path.insert(0, HERE)
    from gguf_write import write_gguf
    from llama_cpp_peer import LlamaCpp, compare
    peer = LlamaCpp(args.llama_cpp)
    f32 = os.path.join(args.work, f"llama100m-{tag}F32.gguf")
    if not (args.reuse and os.path.exists(f32)):
        write_gguf(base, f32)
    prompts = [json.loads(run(args.ogai, "tokenize", base, "--text", p)) for p in DEFAULT_PROMPTS]
    ref = peer.load(f32)
    models, out = {"F32": ref}, {}
    for fmt in args.llama_formats.split(","):
        path = os.path.join(args.work, f"llama100m-{tag}{fmt}.gguf")
        if not (args.reuse and os.path.exists(path)):
            peer.quantize(f32, path, fmt)
        models[fmt] = peer.load(path)
        out[f"llama.cpp {fmt}"] = (path, dir_mib(path),
                                   compare(peer, ref, models[fmt], vocab, prompts, args.tokens, 1))
    out["llama.cpp F32"] = (f32, dir_mib(f32), None)
    return out, peer, models


# ogai compare's built-in prompts (src/cli/compare_command.cc), for llama.cpp's side of the KL.
DEFAULT_PROMPTS = ["Once upon a time", "The little dog", "One day, a girl named Lily",
                   "Tom and his friend went to the park"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ogai")
    ap.add_argument("--work", default="bench_data/quantize")
    ap.add_argument("--pairs", type=int, default=5, help="rounds (each runs every row once)")
    ap.add_argument("--gen", type=int, default=64)
    ap.add_argument("--prompt-len", type=int, default=32)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--configs", default="32:4,64:4,128:4,32:0")
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--no-lm-head", action="store_true")
    ap.add_argument("--vocab", type=int, default=0, help="the bench model's vocabulary (default 512)")
    ap.add_argument("--llama-cpp", default="", help="the bins/linux-x64 folder of @node-llama-cpp/linux-x64: "
                    "adds llama.cpp's rows (bench/llama_cpp_peer.py)")
    ap.add_argument("--llama-formats", default="Q4_0,Q4_K_M")
    ap.add_argument("--reuse", action="store_true",
                    help="keep packages and compare results already in --work (speed re-runs only)")
    args = ap.parse_args()
    shared = os.environ.get("OGAI_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
    tag = f"v{args.vocab}-" if args.vocab else ""
    base = os.path.join(args.work, f"llama100m-{tag}fp32")
    os.makedirs(args.work, exist_ok=True)
    if not os.path.exists(os.path.join(base, "model.onnx")):
        run("/usr/bin/python3", os.path.join(ROOT, "tools", "genai", "builder_llama.py"), base,
            os.path.join(shared, "models", "stories260k", "tokenizer.json"), "--bench",
            *(["--vocab", str(args.vocab)] if args.vocab else []))
    rows = {"fp32": (base, dir_mib(base), None)}
    rows.update(ogai_packages(args, base, tag))
    prompt = [1] + [3 + (i * 7919) % 509 for i in range(args.prompt_len - 1)]  # ids every vocabulary has
    runners = {name: (lambda pkg: lambda t: bench(args.ogai, pkg, t, prompt, args.gen))(row[0])
               for name, row in rows.items()}
    if args.llama_cpp:
        llama_rows, peer, models = llama_cpp_models(args, base, tag, args.vocab or 512)
        rows.update(llama_rows)
        for name in llama_rows:
            model = models[name.split()[-1]]
            runners[name] = (lambda m: lambda t: peer.bench(m, args.vocab or 512, t, prompt, args.gen))(model)
    print(f"model: {base} ({dir_mib(base):.0f} MiB fp32); prompt {args.prompt_len}, {args.gen} generated, "
          f"median of {args.pairs} rounds; load average {loadavg()}")
    print("| row | MiB | threads | decode tok/s | vs fp32 | vs llama.cpp Q4_0 | prefill tok/s | vs fp32 |"
          " agreement | KL mean | KL max | first divergence |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for threads in [int(t) for t in args.threads.split(",")]:
        result = paired(runners, threads, args)
        for name, (d, dr, dl, p, pr) in result.items():
            acc = rows[name][2]
            quality = (f"{acc['greedy_agreement']:.3f} | {acc['kl_mean']:.4f} | {acc['kl_max']:.3f} | "
                       f"{' '.join(str(x) for x in acc['first_divergence'])}") if acc else "- | - | - | -"
            fmt = lambda r: f"{r:.2f}x" if r is not None else "-"
            print(f"| {name} | {rows[name][1]:.0f} | {threads} | {d:.1f} | {fmt(dr)} | {fmt(dl)} | {p:.0f} | {fmt(pr)} |"
                  f" {quality} |", flush=True)
    print(f"load average at the end: {loadavg()}")


if __name__ == "__main__":
    main()
