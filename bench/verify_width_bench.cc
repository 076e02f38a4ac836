// Where a wide (speculative verification) run's cost lives: the graph run itself versus ogai's
// roll-back of the rejected positions.
//   verify_width_bench [--package DIR] [--rows 1,8] [--past N] [--widths 5] [--rounds N]
// For each row count R and width S = 1..widths: bare ONNX Runtime runs of the package's
// stories260k-style graph (one intra-op thread, host tensors, R rows of `past` positions each,
// S new tokens per row, every mask position 1), thread CPU time per run, rounds interleaving the
// widths, median per width; printed relative to S = 1 (a plain step). Beside it, the roll-back
// after such a run when every row keeps one new position, on the run's own presents, timed the
// same way: a fresh tensor per pair with each row's kept positions copied in (what
// kv::BatchCache::keep_prefixes did before) and in place (kv::keep_right_aligned, what it does on
// the host now), alternating rounds. The engine's width rule weighs run +
// roll-back (speculation_width.h); this splits the two and shows how much a change on ogai's
// side of the run could remove. Evidence, no goal (docs/speculative.md, "What a wide run costs").
#include <onnxruntime_cxx_api.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "kv/row_copy.h"
#include "ort/tensor.h"

namespace {

struct Flags {
  std::string package = OGAI_PACKAGES_DIR "/stories260k";
  std::vector<std::int64_t> rows = {1, 8};
  std::int64_t past = 128, widths = 5;
  int rounds = 200;
};

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: verify_width_bench [--package DIR] [--rows 1,8] [--past N] [--widths N] [--rounds N]\n");
  std::exit(2);
}

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage();
    const std::string value = argv[++i];
    if (arg == "--package") {
      f.package = value;
    } else if (arg == "--rows") {
      f.rows.clear();
      for (std::size_t at = 0; at < value.size();) {
        const std::size_t comma = std::min(value.find(',', at), value.size());
        f.rows.push_back(std::atoll(value.substr(at, comma - at).c_str()));
        at = comma + 1;
      }
    } else if (arg == "--past") {
      f.past = std::atoll(value.c_str());
    } else if (arg == "--widths") {
      f.widths = std::atoll(value.c_str());
    } else if (arg == "--rounds") {
      f.rounds = std::atoi(value.c_str());
    } else {
      usage();
    }
  }
  for (auto r : f.rows)
    if (r < 1) usage();
  if (f.rows.empty() || f.past < 1 || f.widths < 1 || f.rounds < 1) usage();
  return f;
}

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The graph's KV geometry, read from its first past input: [batch, kv_heads, past, head_dim].
struct Graph {
  Ort::Session session{nullptr};
  std::vector<std::string> in_names, out_names;
  std::vector<const char*> in_c, out_c;
  std::int64_t pairs = 0, kv_heads = 0, head_dim = 0;
};

Graph open(const std::string& path) {
  static Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "verify_width_bench");
  Ort::SessionOptions so;
  so.SetIntraOpNumThreads(1);
  so.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  Graph g;
  g.session = Ort::Session(env, path.c_str(), so);
  Ort::AllocatorWithDefaultOptions alloc;
  for (std::size_t i = 0; i < g.session.GetInputCount(); ++i) {
    g.in_names.push_back(g.session.GetInputNameAllocated(i, alloc).get());
    if (g.in_names.back().rfind("past_key_values.", 0) != 0) continue;
    ++g.pairs;
    auto shape = g.session.GetInputTypeInfo(i).GetTensorTypeAndShapeInfo().GetShape();
    g.kv_heads = shape[1];
    g.head_dim = shape[3];
  }
  for (std::size_t i = 0; i < g.session.GetOutputCount(); ++i)
    g.out_names.push_back(g.session.GetOutputNameAllocated(i, alloc).get());
  for (auto& n : g.in_names) g.in_c.push_back(n.c_str());
  for (auto& n : g.out_names) g.out_c.push_back(n.c_str());
  if (g.pairs == 0 || g.in_names.size() != static_cast<std::size_t>(g.pairs) + 3) {
    std::fprintf(stderr, "%s: not a stories260k-style graph (input_ids, attention_mask, position_ids, pasts)\n",
                 path.c_str());
    std::exit(1);
  }
  return g;
}

// One run of R rows x `seq` new tokens over `past` positions: its thread CPU seconds and presents.
double run_once(Graph& g, std::int64_t rows, std::int64_t past, std::int64_t seq, std::vector<float>& kv,
                std::vector<ogai::ort::Tensor>& presents) {
  auto mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(rows * seq), 5), pos(ids.size());
  std::vector<std::int64_t> mask(static_cast<std::size_t>(rows * (past + seq)), 1);
  for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = past + static_cast<std::int64_t>(i) % seq;
  const std::int64_t ids_shape[] = {rows, seq}, mask_shape[] = {rows, past + seq};
  const std::int64_t kv_shape[] = {rows, g.kv_heads, past, g.head_dim};
  std::vector<Ort::Value> in;
  in.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, ids.data(), ids.size(), ids_shape, 2));
  in.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, mask.data(), mask.size(), mask_shape, 2));
  in.push_back(Ort::Value::CreateTensor<std::int64_t>(mem, pos.data(), pos.size(), ids_shape, 2));
  const auto kv_size = static_cast<std::size_t>(rows * g.kv_heads * past * g.head_dim);
  for (std::int64_t p = 0; p < g.pairs; ++p)
    in.push_back(Ort::Value::CreateTensor<float>(mem, kv.data(), kv_size, kv_shape, 4));
  const double start = thread_seconds();
  auto out =
      g.session.Run(Ort::RunOptions{nullptr}, g.in_c.data(), in.data(), in.size(), g.out_c.data(), g.out_c.size());
  const double took = thread_seconds() - start;
  presents.clear();
  for (std::size_t i = 1; i < out.size(); ++i) presents.push_back(ogai::ort::Tensor::adopt(out[i].release()));
  return took;
}

// The roll-back after a run `seq` wide in which every row kept one new position (past + 1), on the
// run's own presents: a fresh tensor per pair and a copy of each row's kept positions (before), or
// keep_right_aligned in the run's buffer (what kv::BatchCache::keep_prefixes does on the host).
double rollback_once(std::int64_t rows, std::int64_t past, std::int64_t seq, bool in_place,
                     std::vector<ogai::ort::Tensor>& presents) {
  const std::vector<std::int64_t> lengths(static_cast<std::size_t>(rows), past + seq);
  const std::vector<std::int64_t> keep(static_cast<std::size_t>(rows), past + 1);
  const double start = thread_seconds();
  for (auto& present : presents) {
    if (in_place) {
      present = ogai::kv::keep_right_aligned(std::move(present), lengths, keep, past + 1);
      continue;
    }
    ogai::ort::Shape shape = present.shape();
    shape[2] = past + 1;
    auto next = ogai::ort::Tensor::allocate(present.dtype(), shape);
    for (std::int64_t r = 0; r < rows; ++r) ogai::kv::copy_row_positions(present, r, 0, next, r, 0, past + 1);
    present = std::move(next);
  }
  presents.clear();  // freeing the old buffers is part of both
  return thread_seconds() - start;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  Graph g = open(f.package + "/model.onnx");
  std::printf("%s: %lld KV pairs, %lld KV heads x %lld; past %lld positions per row, 1 intra-op thread, %d rounds\n",
              f.package.c_str(), static_cast<long long>(g.pairs), static_cast<long long>(g.kv_heads),
              static_cast<long long>(g.head_dim), static_cast<long long>(f.past), f.rounds);
  for (const std::int64_t rows : f.rows) {
    std::vector<float> kv(static_cast<std::size_t>(rows * g.kv_heads * f.past * g.head_dim), 0.01f);
    const auto n = static_cast<std::size_t>(f.widths) + 1;
    std::vector<std::vector<double>> run(n), copy(n), in_place(n);
    std::vector<ogai::ort::Tensor> presents;
    for (int round = 0; round < f.rounds + 10; ++round)
      for (std::int64_t s = 1; s <= f.widths; ++s) {
        const double t = run_once(g, rows, f.past, s, kv, presents);
        const auto w = static_cast<std::size_t>(s);
        const bool inplace = round % 2 == 0;  // the two roll-backs alternate rounds
        const double back = s > 1 ? rollback_once(rows, f.past, s, inplace, presents) : 0.0;
        presents.clear();
        if (round < 10) continue;  // warm-up
        run[w].push_back(t);
        if (s > 1) (inplace ? in_place[w] : copy[w]).push_back(back);
      }
    const double plain = median(run[1]);
    std::printf("%lld row(s): plain step %.1f us\n", static_cast<long long>(rows), plain * 1e6);
    for (std::int64_t s = 2; s <= f.widths; ++s) {
      const auto w = static_cast<std::size_t>(s);
      const double wide = median(run[w]), c = median(copy[w]), ip = median(in_place[w]);
      std::printf(
          "  S = %lld: run %.1f us = %.3f plain steps; roll-back: copy %.1f us = %.3f, in place %.1f us = %.3f\n",
          static_cast<long long>(s), wide * 1e6, wide / plain, c * 1e6, c / plain, ip * 1e6, ip / plain);
    }
  }
  return 0;
}
