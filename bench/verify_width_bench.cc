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
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "bench/wide_run.h"
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

using ogai::bench::median;
using ogai::bench::thread_seconds;

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
  auto g = ogai::bench::open_wide_graph(f.package + "/model.onnx");
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
        const double t = ogai::bench::wide_run(g, rows, f.past, s, kv, presents);
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
