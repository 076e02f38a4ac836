"""Cold start of a package with several sessions: sessions created in parallel (the default,
generate/session_preload.h) against one after another (OGAI_PARALLEL_LOAD=0), each with and without
OGAI_SESSION_CACHE, in one run.

    /usr/bin/python3 bench/parallel_load_bench.py OGAI [--work DIR] [--rounds N] [--mib N] [--threads N]

The package: tools/genai/multimodal.py's mm-gemma4 (an ONNX Runtime GenAI gemma4 folder: a vision
encoder, an embedding graph and a text decoder, three sessions) with a ballast added to each graph so
that creating its session costs what a real one does: a chain of fp32 MatMuls (width -> 1024, 1024 x
1024 squares, -> width) on one of its float inputs, scaled by zero and added back, so the graph's
outputs are unchanged (about --mib MiB of weights per graph, external data; the pre-packing of those
weights is what ONNX Runtime's session creation spends its time on). Each side is a fresh
`ogai generate PKG --prompt-ids [2,5,6] --max-new-tokens 1` process, page cache warm, rounds in
alternating order; prints medians and the median of per-round ratios to the serial load without the
cache. Opt-in (not CI): ~1 GB of disk, a minute or two.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WIDE = 1024


def add_ballast(path, tensor, mib, seed):
    """Feeds `tensor` (a float graph input) through a zero-scaled MatMul chain before its consumers."""
    model = onnx.load(path)
    g = model.graph
    width = next(i for i in g.input if i.name == tensor).type.tensor_type.shape.dim[-1].dim_value
    rng = np.random.default_rng(seed)
    squares = max(1, int(mib * 2**20 / (WIDE * WIDE * 4)))
    w = lambda name, shape: numpy_helper.from_array((rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32), name)
    inits = [w("ballast.in", [width, WIDE])] + [w(f"ballast.{i}", [WIDE, WIDE]) for i in range(squares)]
    inits += [w("ballast.out", [WIDE, width]), numpy_helper.from_array(np.zeros([], np.float32), "ballast.zero")]
    nodes = [helper.make_node("MatMul", [tensor, "ballast.in"], ["ballast.h0"], name="ballast/in")]
    for i in range(squares):
        nodes.append(helper.make_node("MatMul", [f"ballast.h{i}", f"ballast.{i}"], [f"ballast.h{i + 1}"], name=f"ballast/{i}"))
    nodes += [helper.make_node("MatMul", [f"ballast.h{squares}", "ballast.out"], ["ballast.y"], name="ballast/out"),
              helper.make_node("Mul", ["ballast.y", "ballast.zero"], ["ballast.z"], name="ballast/zero"),
              helper.make_node("Add", [tensor, "ballast.z"], ["ballast.fed"], name="ballast/add")]
    for n in g.node:
        n.input[:] = ["ballast.fed" if x == tensor else x for x in n.input]
    rest = list(g.node)
    del g.node[:]
    g.node.extend(nodes + rest)
    g.initializer.extend(inits)
    data = os.path.basename(path) + ".data"
    if os.path.exists(path + ".data"):
        os.remove(path + ".data")
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location=data,
                    size_threshold=1024)


def build(work, mib):
    pkg = os.path.join(work, "mm-gemma4")
    marker = os.path.join(work, f"ballast-{mib}")
    if os.path.exists(marker):
        return pkg
    shared = os.environ.get("OGAI_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "genai", "multimodal.py"), work, shared], check=True,
                   capture_output=True)
    for seed, (graph, tensor) in enumerate([("text.onnx", "inputs_embeds"), ("vision.onnx", "pixel_values"),
                                            ("embedding.onnx", "image_features")]):
        add_ballast(os.path.join(pkg, graph), tensor, mib, seed)
    open(marker, "w").close()
    return pkg


def timed(argv, env):
    start = time.perf_counter()
    p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(argv)}: exit {p.returncode}\n{p.stderr}")
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ogai")
    ap.add_argument("--work", default="bench_data/parallel_load")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--mib", type=int, default=150, help="ballast MiB per graph")
    ap.add_argument("--threads", type=int, default=1, help="ONNX Runtime intra-op threads per session")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    pkg = build(args.work, args.mib)
    cache = os.path.join(os.path.abspath(args.work), "session_cache")
    argv = [args.ogai, "generate", pkg, "--prompt-ids", "[2,5,6]", "--max-new-tokens", "1", "--threads",
            str(args.threads)]
    base = dict(os.environ, OGAI_LOG="error")
    sides = {"serial": dict(base, OGAI_PARALLEL_LOAD="0"), "parallel": dict(base),
             "serial, OGAI_SESSION_CACHE": dict(base, OGAI_PARALLEL_LOAD="0", OGAI_SESSION_CACHE=cache),
             "parallel, OGAI_SESSION_CACHE": dict(base, OGAI_SESSION_CACHE=cache)}
    for env in sides.values():
        timed(argv, env)  # warms the page cache and fills the session cache
    seconds = {name: [] for name in sides}
    names = list(sides)
    for r in range(args.rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            seconds[name].append(timed(argv, sides[name]))
    mib = sum(os.path.getsize(os.path.join(pkg, f)) for f in os.listdir(pkg)) / 2**20
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{pkg}: 3 sessions, {mib:.0f} MiB, {args.threads} intra-op thread(s), {os.cpu_count()} cores, "
          f"{args.rounds} rounds (order alternating), load average {load}")
    print("| load | start to first token, median s | / serial (median of rounds) |\n|---|---|---|")
    for name in names:
        ratio = statistics.median(t / s for t, s in zip(seconds[name], seconds["serial"]))
        print(f"| {name} | {statistics.median(seconds[name]):.3f} | {ratio:.3f} |")


if __name__ == "__main__":
    main()
