// Cost of token log-probabilities per token: greedy sampling through LogprobRecorder with logprobs
// off (the row goes straight to the sampler) and on with N = 0, 5, 20 alternatives, as a ratio to
// off, all measured in this run on the same logits. Every call gets a fresh copy of the row (the
// sampler overwrites it, as the model's output would be); that copy is timed alone and subtracted.
//   logprobs_bench [--quick]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "generate/token_logprobs.h"
#include "sampling/rng.h"
#include "bench/bench_util.h"
#include "sampling/sampler.h"

namespace {

std::vector<float> make_logits(size_t vocab) {
  ogai::sampling::Rng rng(11);
  std::vector<float> x(vocab);
  for (float& v : x) v = static_cast<float>(4.0 * rng.uniform() - 2.0);
  for (int i = 0; i < 8; ++i) x[rng.next() % vocab] += 10.0f + static_cast<float>(i);
  return x;
}

void run_vocab(size_t vocab, bool quick) {
  const std::vector<float> logits = make_logits(vocab);
  std::vector<float> row(vocab);
  const int calls = std::max<int>(4, static_cast<int>((quick ? 2e6 : 2e7) / vocab));
  const int rounds = quick ? 3 : 7;
  auto copy = [&] { std::memcpy(row.data(), logits.data(), vocab * sizeof(float)); };
  volatile float sink = 0;
  const double copy_s = ogai::bench::time_best_mean(rounds, calls, [&] { copy(); sink = sink + row[vocab / 2]; });
  ogai::sampling::SamplingParams params;
  params.do_sample = false;
  ogai::sampling::Sampler sampler(params, static_cast<int64_t>(vocab));
  auto per_token = [&](std::optional<int> n) {
    ogai::generate::LogprobRecorder recorder(n);
    double s = ogai::bench::time_best_mean(rounds, calls, [&] {
      copy();
      const auto token = sampler.sample(recorder.observe(row));
      const ogai::TokenLogprobs* e = recorder.entry(static_cast<std::int32_t>(token));
      sink = sink + (e ? e->logprob : 0.0f);
    });
    return std::max(s - copy_s, 1e-12);
  };
  const double off = per_token(std::nullopt);
  std::printf("V=%zu: greedy, logprobs off %.2f us/token (row copy %.2f us, subtracted)\n", vocab, off * 1e6,
              copy_s * 1e6);
  for (int n : {0, 5, 20}) {
    const double on = per_token(n);
    std::printf("  logprobs on, N=%-2d %9.2f us/token   ratio to off %6.2f\n", n, on * 1e6, on / off);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  std::printf("ogai token logprobs per token vs logprobs off (same logits, same run)\n");
  run_vocab(512, quick);
  run_vocab(262144, quick);
  return 0;
}
