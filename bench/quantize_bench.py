"""`ogai quantize` speed and accuracy on a ~100M-parameter Llama-style model built at bench time.

    /usr/bin/python3 bench/quantize_bench.py OGAI [--work DIR] [--pairs N] [--gen N] [--prompt-len N]
        [--threads 1,2] [--configs 32:4,64:4,128:4,32:0] [--tokens N] [--no-lm-head] [--reuse] [--vocab N]

A configuration is BLOCK:LEVEL[:hBITS][:eBITS]: the block size and accuracy level of every MatMul,
then optionally the lm-head's precision (h4 = 4-bit, the default unless --no-lm-head; h8 = 8-bit;
h32 = left fp32) and the token embedding's (e4 / e8; default left fp32). --vocab N builds the model
with an N-id vocabulary (embedding and lm-head N x 768) instead of 512, where the head's precision
matters (a 32k head is 98 MB in fp32).

tools/genai/builder_llama.py --bench writes the fp32 folder (random weights from a fixed seed;
stories260k's tokenizer). Each configuration BLOCK:LEVEL is quantized (symmetric, --lm-head) and
then, for each thread count, `ogai bench` runs the fp32 source and the 4-bit package back to back
N times (order alternating); decode and prefill tokens/s are the medians and the ratio is the
median of the per-pair ratios. Accuracy: `ogai compare fp32 q4 --tokens N` (greedy agreement
under teacher forcing, mean/max KL, first divergence). Prints one table row per configuration
and thread count, and the load average (1, 5, 15 min) before and after: the ratios are paired, but
a loaded machine compresses them (docs/quantize.md). Opt-in: not part of CI (minutes, ~1 GB of
disk). bench/matmulnbits_bench measures the 4-bit kernel alone on the same shapes (its ceiling).
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


def bench(ogai, pkg, threads, prompt_len, gen):
    out = run(ogai, "bench", pkg, "--threads", str(threads), "--prompt-len", str(prompt_len), "--gen", str(gen),
              "--runs", "1", "--json")
    j = json.loads(out)
    return j["decode_tok_s"], j["prefill_tok_s"]


def paired(ogai, base, q4, threads, args):
    rows = {"base": [], "q4": []}
    for i in range(args.pairs):
        order = [("base", base), ("q4", q4)] if i % 2 == 0 else [("q4", q4), ("base", base)]
        for name, pkg in order:
            rows[name].append(bench(ogai, pkg, threads, args.prompt_len, args.gen))
    med = lambda xs: statistics.median(xs)
    decode_ratio = med([q[0] / b[0] for b, q in zip(rows["base"], rows["q4"])])
    prefill_ratio = med([q[1] / b[1] for b, q in zip(rows["base"], rows["q4"])])
    return (med([r[0] for r in rows["base"]]), med([r[0] for r in rows["q4"]]), decode_ratio,
            med([r[1] for r in rows["base"]]), med([r[1] for r in rows["q4"]]), prefill_ratio)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ogai")
    ap.add_argument("--work", default="bench_data/quantize")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--gen", type=int, default=64)
    ap.add_argument("--prompt-len", type=int, default=32)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--configs", default="32:4,64:4,128:4,32:0")
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--no-lm-head", action="store_true")
    ap.add_argument("--vocab", type=int, default=0, help="the bench model's vocabulary (default 512)")
    ap.add_argument("--reuse", action="store_true",
                    help="keep 4-bit packages and compare results already in --work (speed re-runs only)")
    args = ap.parse_args()
    shared = os.environ.get("OGAI_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
    tag = f"v{args.vocab}-" if args.vocab else ""
    base = os.path.join(args.work, f"llama100m-{tag}fp32")
    if not os.path.exists(os.path.join(base, "model.onnx")):
        run("/usr/bin/python3", os.path.join(ROOT, "tools", "genai", "builder_llama.py"), base,
            os.path.join(shared, "models", "stories260k", "tokenizer.json"), "--bench",
            *(["--vocab", str(args.vocab)] if args.vocab else []))
    print(f"model: {base} ({os.path.getsize(os.path.join(base, 'model.onnx.data')) / 2**20:.0f} MiB fp32 weights); "
          f"prompt {args.prompt_len}, {args.gen} generated, median of {args.pairs} pairs; load average {loadavg()}")
    print("| block | level | head | embedding | MiB | threads | decode fp32 | decode q4 | ratio | prefill fp32 | prefill q4 |"
          " ratio | agreement | KL mean | KL max | first divergence |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for config in args.configs.split(","):
        block, level, *parts = config.split(":")
        head = "32" if args.no_lm_head else "4"
        embedding = "32"
        for part in parts:
            if part[:1] == "h" and part[1:] in ("4", "8", "32"):
                head = part[1:]
            elif part[:1] == "e" and part[1:] in ("4", "8"):
                embedding = part[1:]
            else:
                sys.exit(f"{config}: {part!r} is not hBITS (h4, h8, h32) or eBITS (e4, e8)")
        name = f"{tag}b{block}-l{level}-h{head}-e{embedding}"
        q4 = os.path.join(args.work, f"llama100m-q4-{name}")
        flags = ["--block-size", block, "--accuracy-level", level, "--force"]
        flags += [] if head == "32" else ["--lm-head-bits", head]
        flags += [] if embedding == "32" else ["--embeddings-bits", embedding]
        cached = os.path.join(args.work, f"compare-{name}-t{args.tokens}.json")
        if not (args.reuse and os.path.exists(os.path.join(q4, "model.onnx"))):
            run(args.ogai, "quantize", base, q4, *flags)
        if not (args.reuse and os.path.exists(cached)):
            with open(cached, "w") as f:
                f.write(run(args.ogai, "compare", base, q4, "--tokens", str(args.tokens), "--json"))
        with open(cached) as f:
            acc = json.loads(f.read())
        for threads in [int(t) for t in args.threads.split(",")]:
            d0, d1, dr, p0, p1, pr = paired(args.ogai, base, q4, threads, args)
            size = sum(os.path.getsize(os.path.join(q4, f)) for f in os.listdir(q4)) / 2**20
            print(f"| {block} | {level} | {head} | {embedding} | {size:.0f} | {threads} | {d0:.1f} | {d1:.1f} | {dr:.2f}x |"
                  f" {p0:.0f} | {p1:.0f} | {pr:.2f}x |"
                  f" {acc['greedy_agreement']:.3f} | {acc['kl_mean']:.4f} | {acc['kl_max']:.3f} |"
                  f" {' '.join(str(x) for x in acc['first_divergence'])} |", flush=True)
    print(f"load average at the end: {loadavg()}")


if __name__ == "__main__":
    main()
