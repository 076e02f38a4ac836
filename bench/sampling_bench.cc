// Cost of ogai's sampling chain per token, as a ratio to a plain argmax over the same logits,
// both measured in this run. The chain overwrites its logits, so every call gets a fresh copy of
// one row; the copy is timed alone and subtracted from both sides.
//   sampling_bench [--quick]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "sampling/rng.h"
#include "sampling/sampler.h"

namespace {

using ogai::sampling::Sampler;
using ogai::sampling::SamplingParams;

// Logits shaped like a language model's: a Gaussian bulk plus a few strong candidates.
std::vector<float> make_logits(size_t vocab) {
  ogai::sampling::Rng rng(7);
  std::vector<float> x(vocab);
  for (float& v : x) {
    double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
    v = static_cast<float>(2.0 * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }
  for (int i = 0; i < 8; ++i) x[rng.next() % vocab] += 10.0f + static_cast<float>(i);
  return x;
}

// The baseline: the simplest argmax a decode loop could use.
int64_t plain_argmax(const float* x, size_t n) {
  size_t best = 0;
  for (size_t i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return static_cast<int64_t>(best);
}

struct Config {
  const char* name;
  SamplingParams params;
};

std::vector<Config> configs() {
  auto make = [](auto change) {
    SamplingParams p;
    p.seed = 1;
    change(p);
    return p;
  };
  return {
      {"greedy + repetition 1.1", make([](auto& p) { p.do_sample = false, p.repetition_penalty = 1.1; })},
      {"temperature 0.8", make([](auto& p) { p.temperature = 0.8; })},
      {"T 0.8, top_k 50, top_p 0.9", make([](auto& p) { p.temperature = 0.8, p.top_k = 50, p.top_p = 0.9; })},
      {"T 0.8, top_p 0.9", make([](auto& p) { p.temperature = 0.8, p.top_p = 0.9; })},
      {"min_p 0.05", make([](auto& p) { p.min_p = 0.05; })},
      {"typical_p 0.9", make([](auto& p) { p.typical_p = 0.9; })},
      {"everything", make([](auto& p) {
         p.temperature = 0.8, p.top_k = 64, p.top_p = 0.95, p.min_p = 0.02, p.typical_p = 0.95;
         p.repetition_penalty = 1.1, p.frequency_penalty = 0.2, p.presence_penalty = 0.2;
         p.logit_bias = {{3, -5.0}, {11, 2.0}};
       })},
  };
}

void run_vocab(size_t vocab, bool quick) {
  const std::vector<float> logits = make_logits(vocab);
  std::vector<float> row(vocab);
  const int calls = std::max<int>(4, static_cast<int>((quick ? 2e6 : 2e7) / vocab));
  const int rounds = quick ? 3 : 7;
  auto copy = [&] { std::memcpy(row.data(), logits.data(), vocab * sizeof(float)); };
  volatile int64_t sink = 0;
  double copy_s = ogai::bench::time_best_mean(rounds, calls, [&] {
    copy();
    sink = sink + row[vocab / 2];
  });
  double argmax_s = ogai::bench::time_best_mean(rounds, calls, [&] {
    copy();
    sink = sink + plain_argmax(row.data(), vocab);
  });
  argmax_s = std::max(argmax_s - copy_s, 1e-12);
  std::printf("V=%zu: plain argmax %.2f us/token (row copy %.2f us, subtracted below)\n", vocab, argmax_s * 1e6,
              copy_s * 1e6);
  std::vector<ogai::TokenId> history(500);
  for (size_t i = 0; i < history.size(); ++i) history[i] = static_cast<ogai::TokenId>((i * 7919) % vocab);
  for (const Config& config : configs()) {
    Sampler sampler(config.params, static_cast<int64_t>(vocab));
    sampler.reset(history);
    double chain_s = ogai::bench::time_best_mean(rounds, calls, [&] {
      copy();
      sink = sink + sampler.sample(row);
    });
    chain_s = std::max(chain_s - copy_s, 0.0);
    std::printf("  %-28s %9.2f us/token   ratio to argmax %7.2f\n", config.name, chain_s * 1e6, chain_s / argmax_s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  std::printf("ogai sampling chain per token vs plain argmax (same logits, same run)\n");
  run_vocab(512, quick);
  run_vocab(262144, quick);
  return 0;
}
