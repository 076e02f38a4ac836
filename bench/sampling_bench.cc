// Cost of ogai's sampling chain per token over one row of logits, for every mode, at 32k, 128k and
// 262k vocabularies: the current Sampler against the sampler it replaced (tests/sampling/
// legacy_sampler.h, compiled in) and against the memory-read floor (one pass that sums the row).
//
// Rows: "trained" rows are stories260k's real logits (model.onnx run by ONNX Runtime over a
// story: 64 positions) grown to V: each row's 32 best logits stay as they are (the peaked head,
// at fixed pseudo-random ids), and the other V - 32 ids take the row's remaining 480 logits in
// turn, lowered by ln((V - 32) / 480) so that the tail keeps the model's own mass, spread over
// the larger vocabulary (the long tail). "uniform" rows are U[0, 1) logits: the worst case, where
// top-p keeps most of the vocabulary.
// Timing: every sampler call gets a fresh copy of its row (the chain overwrites it); the floor
// sums the stored rows themselves (the rows of a round do not fit in L2, so it reads from L3 or
// memory: what one pass over a row costs). Per round, each variant (copy only, floor, old, new)
// runs over all rows in turn, the variants alternating within the round; a variant's time is the
// median over rounds of the thread's CPU time per call (clock_gettime(CLOCK_THREAD_CPUTIME_ID): a
// loaded machine's preemptions are not counted), the samplers' minus the copy's median. Ratios
// are of medians measured in this process.
// --batch adds what a decode step of the engine pays: its rows (16, one sampler each) sampled one
// after another against the same rows sampled on a WorkPool of the machine's hardware threads (the
// engine's sampling pool, base/work_pool.h); wall time per step, medians of alternating rounds.
// --mode TEXT runs only the modes whose name contains TEXT.
//   sampling_bench [--quick] [--rounds N] [--vocab V] [--mode TEXT] [--batch]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/work_pool.h"
#include "bench/bench_util.h"
#include "generate/token_logprobs.h"
#include "ort/session.h"
#include "ort/tensor.h"
#include "sampling/rng.h"
#include "sampling/sampler.h"
#include "sampling/vector_clones.h"
#include "tests/sampling/legacy_sampler.h"

namespace {

using ogai::sampling::AllowedTokens;
using ogai::sampling::SamplingParams;
namespace ort = ogai::ort;

constexpr int kModelVocab = 512;
constexpr int kHead = 32;

// stories260k's logits over a story (prompt "Once upon a time" and its greedy continuation).
std::vector<std::vector<float>> stories_rows() {
  const std::vector<std::int64_t> ids = {
      1,   403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410,
      408, 419, 292, 411, 322, 265, 282, 295, 433, 426, 385, 328, 432, 358, 394, 261, 370, 432, 352, 266, 268, 388,
      426, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410, 408, 419, 292, 411, 322, 265, 282};
  const auto s = static_cast<std::int64_t>(ids.size());
  ort::SessionOptions options;
  options.intra_op_threads = 1;
  ort::Session session =
      ort::Session::open(std::filesystem::path(OGAI_SHARED_DIR) / "models/stories260k/model.onnx", options);
  std::vector<std::int64_t> mask(ids.size(), 1), positions(ids.size());
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<std::int64_t>(i);
  std::vector<ort::Tensor> owned;
  std::vector<std::string> names = {"input_ids", "attention_mask", "position_ids"};
  owned.push_back(ort::Tensor::copy_of<std::int64_t>(ids, {1, s}));
  owned.push_back(ort::Tensor::copy_of<std::int64_t>(mask, {1, s}));
  owned.push_back(ort::Tensor::copy_of<std::int64_t>(positions, {1, s}));
  for (int layer = 0; layer < 5; ++layer) {
    for (const char* kind : {"key", "value"}) {
      names.push_back("past_key_values." + std::to_string(layer) + "." + kind);
      owned.push_back(ort::Tensor::zeros(ogai::DataType::kFloat32, {1, 4, 0, 8}));
    }
  }
  std::vector<const ort::Tensor*> inputs;
  for (const auto& t : owned) inputs.push_back(&t);
  const std::vector<std::string> outputs = {"logits"};
  std::vector<ort::Tensor> out = session.run(names, inputs, outputs);
  std::span<const float> all = out[0].span<float>();
  std::vector<std::vector<float>> rows;
  for (std::int64_t p = 0; p < s; ++p) rows.emplace_back(all.begin() + p * kModelVocab, all.begin() + (p + 1) * kModelVocab);
  return rows;
}

// A model row grown to `vocab` ids (see the file comment).
std::vector<float> grow(const std::vector<float>& row, std::size_t vocab, std::uint64_t salt) {
  std::vector<float> sorted = row;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  const std::size_t tail = sorted.size() - kHead;
  const float lower = static_cast<float>(std::log(static_cast<double>(vocab - kHead) / static_cast<double>(tail)));
  std::vector<float> out(vocab);
  ogai::sampling::Rng rng(salt);
  for (std::size_t i = 0; i < vocab; ++i) out[i] = sorted[kHead + rng.next() % tail] - lower;
  for (int h = 0; h < kHead; ++h) out[rng.next() % vocab] = sorted[static_cast<std::size_t>(h)];
  return out;
}

std::vector<float> uniform_row(std::size_t vocab, std::uint64_t seed) {
  ogai::sampling::Rng rng(seed);
  std::vector<float> out(vocab);
  for (float& v : out) v = static_cast<float>(rng.uniform());
  return out;
}

// A fixed allowed set (about 30% of the ids, every 64-id block mixed), as a grammar's mask.
class FixedMask final : public ogai::sampling::Constraint {
 public:
  explicit FixedMask(std::size_t vocab) : words_((vocab + 63) / 64, 0) {
    ogai::sampling::Rng rng(99);
    for (std::size_t id = 0; id < vocab; ++id)
      if (rng.uniform() < 0.3) words_[id / 64] |= std::uint64_t{1} << (id % 64);
  }
  std::unique_ptr<ogai::sampling::ConstraintState> start() const override { return std::make_unique<State>(this); }

 private:
  struct State final : ogai::sampling::ConstraintState {
    explicit State(const FixedMask* mask) : mask(mask) {}
    AllowedTokens allowed() override { return {mask->words_, {}, false}; }
    void accept(ogai::TokenId) override {}
    bool complete() const override { return false; }
    const FixedMask* mask;
  };
  std::vector<std::uint64_t> words_;
};

struct Mode {
  const char* name;
  SamplingParams params;
  int logprobs = -1;  // top_logprobs through generate::LogprobRecorder; -1: off
};

std::vector<Mode> modes(std::size_t vocab) {
  auto make = [](auto change) {
    SamplingParams p;
    p.seed = 1;
    change(p);
    return p;
  };
  auto mask = std::make_shared<FixedMask>(vocab);
  return {
      {"greedy", make([](auto& p) { p.do_sample = false; })},
      {"top_k 1", make([](auto& p) { p.top_k = 1; })},
      {"T 1 (OpenAI default)", make([](auto&) {})},
      {"temperature 0.8", make([](auto& p) { p.temperature = 0.8; })},
      {"top_k 50", make([](auto& p) { p.temperature = 0.8, p.top_k = 50; })},
      {"T 0.8, top_p 0.95", make([](auto& p) { p.temperature = 0.8, p.top_p = 0.95; })},
      {"top_p 0.9 (T 1)", make([](auto& p) { p.top_p = 0.9; })},
      {"min_p 0.05", make([](auto& p) { p.temperature = 0.8, p.min_p = 0.05; })},
      {"top_p 0.95 + min_p 0.05", make([](auto& p) { p.top_p = 0.95, p.min_p = 0.05; })},
      {"typical_p 0.9", make([](auto& p) { p.typical_p = 0.9; })},
      {"penalties (rep, freq, pres)", make([](auto& p) {
         p.temperature = 0.8, p.top_p = 0.95, p.repetition_penalty = 1.1, p.frequency_penalty = 0.2,
         p.presence_penalty = 0.2;
       })},
      {"logit_bias", make([](auto& p) { p.temperature = 0.8, p.top_p = 0.95, p.logit_bias = {{3, -5.0}, {11, 2.0}}; })},
      {"grammar mask, T 0.8 top_p 0.95", make([&](auto& p) { p.temperature = 0.8, p.top_p = 0.95, p.constraint = mask; })},
      {"grammar mask, greedy", make([&](auto& p) { p.do_sample = false, p.constraint = mask; })},
      {"logprobs 5, T 0.8 top_p 0.95", make([](auto& p) { p.temperature = 0.8, p.top_p = 0.95; }), 5},
      {"logprobs 5, T 1", make([](auto&) {}), 5},
      {"everything, top_k 64", make([](auto& p) {
         p.temperature = 0.8, p.top_k = 64, p.top_p = 0.95, p.min_p = 0.02, p.typical_p = 0.95;
         p.repetition_penalty = 1.1, p.frequency_penalty = 0.2, p.presence_penalty = 0.2;
         p.logit_bias = {{3, -5.0}, {11, 2.0}};
       })},
  };
}

// The memory-read floor: one pass summing the row in 16 float lanes (vectorized, AVX2 clone).
OGAI_VECTOR_CLONES float floor_pass(std::span<const float> row) {
  float lane[16] = {};
  std::size_t i = 0;
  for (; i + 16 <= row.size(); i += 16)
    for (std::size_t l = 0; l < 16; ++l) lane[l] += row[i + l];
  float sum = 0;
  for (float v : lane) sum += v;
  for (; i < row.size(); ++i) sum += row[i];
  return sum;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Timed {
  std::function<void(std::span<float>)> call;  // gets a fresh copy of the row (or the row itself)
  std::vector<double> per_call;                // seconds per call, one entry per round
  bool copies = true;                          // false: reads the stored row, no copy to subtract
};

// Runs each variant over every row once per round, alternating, and returns median seconds per
// call minus the copy's.
std::vector<double> measure(std::vector<Timed>& variants, const std::vector<std::vector<float>>& rows, int rounds) {
  std::vector<float> buffer(rows.front().size());
  Timed copy{[](std::span<float>) {}, {}};
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t v = 0; v <= variants.size(); ++v) {
      Timed& t = v == 0 ? copy : variants[v - 1];
      const double seconds = ogai::bench::thread_cpu_once([&] {
        for (const auto& row : rows) {
          if (!t.copies) {
            t.call(std::span<float>(const_cast<float*>(row.data()), row.size()));  // read only
            continue;
          }
          std::memcpy(buffer.data(), row.data(), row.size() * sizeof(float));
          t.call(buffer);
        }
      });
      t.per_call.push_back(seconds / static_cast<double>(rows.size()));
    }
  }
  const double base = median(copy.per_call);
  std::vector<double> out;
  for (Timed& t : variants) out.push_back(std::max(median(t.per_call) - (t.copies ? base : 0.0), 1e-9));
  return out;
}

std::vector<ogai::TokenId> history(std::size_t vocab) {
  std::vector<ogai::TokenId> h(300);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<ogai::TokenId>((i * 7919) % vocab);
  return h;
}

std::string g_mode_filter;  // --mode

void run_shape(const char* shape, const std::vector<std::vector<float>>& rows, int rounds) {
  const std::size_t vocab = rows.front().size();
  volatile double sink = 0;
  std::printf("\n%s rows, V = %zu (%zu rows, median of %d rounds; us per token)\n", shape, vocab, rows.size(), rounds);
  std::printf("  %-32s %9s %9s %9s %8s %9s\n", "mode", "floor", "old", "new", "old/new", "new/floor");
  const std::vector<ogai::TokenId> prompt = history(vocab);
  for (const Mode& mode : modes(vocab)) {
    if (std::string(mode.name).find(g_mode_filter) == std::string::npos) continue;
    ogai::sampling::legacy::Sampler old_sampler(mode.params, static_cast<std::int64_t>(vocab));
    ogai::sampling::Sampler new_sampler(mode.params, static_cast<std::int64_t>(vocab));
    old_sampler.reset(prompt);
    new_sampler.reset(prompt);
    std::optional<int> top;
    if (mode.logprobs >= 0) top = mode.logprobs;
    ogai::generate::LogprobRecorder old_rec(top), new_rec(top);
    std::vector<Timed> variants;
    variants.push_back({[&](std::span<float> row) { sink = sink + floor_pass(row); }, {}, false});
    variants.push_back({[&](std::span<float> row) {
                          const ogai::TokenId t = old_sampler.sample(old_rec.observe(row));
                          if (old_rec.enabled()) sink = sink + old_rec.entry(t)->logprob;
                        },
                        {}});
    variants.push_back({[&](std::span<float> row) {
                          // As the engine calls them (live_sequence.cc): no copy when the sampler
                          // leaves the row, its sum reused when it is the raw row's.
                          const ogai::TokenId t = new_sampler.sample(new_rec.observe(row, new_sampler.leaves_row()));
                          if (new_rec.enabled()) sink = sink + new_rec.entry(t, new_sampler.raw_softmax_sum())->logprob;
                        },
                        {}});
    const std::vector<double> s = measure(variants, rows, rounds);
    std::printf("  %-32s %9.1f %9.1f %9.1f %8.2f %9.2f\n", mode.name, s[0] * 1e6, s[1] * 1e6, s[2] * 1e6,
                s[1] / s[2], s[2] / s[0]);
    std::fflush(stdout);
  }
}

// One decode step's rows, each with its own sampler, sampled serially and on `pool`: wall seconds
// per step (median over rounds, the two variants alternating).
void run_batch(const char* shape, const std::vector<std::vector<float>>& rows, int rounds) {
  ogai::WorkPool pool(ogai::WorkPool::default_threads());
  std::printf("\n%s rows, V = %zu: a step of %zu rows, serial vs %zu threads (ms per step, wall)\n", shape,
              rows.front().size(), rows.size(), pool.threads());
  const std::vector<std::pair<const char*, SamplingParams>> chosen = {
      {"T 1 (OpenAI default)", modes(rows.front().size())[2].params},
      {"T 0.8, top_p 0.95", modes(rows.front().size())[5].params}};
  for (const auto& [name, params] : chosen) {
    std::vector<std::unique_ptr<ogai::sampling::Sampler>> samplers;
    for (std::size_t r = 0; r < rows.size(); ++r)
      samplers.push_back(std::make_unique<ogai::sampling::Sampler>(params, static_cast<std::int64_t>(rows[r].size())));
    std::vector<std::vector<float>> buffers = rows;
    std::vector<double> serial, parallel;
    volatile std::int64_t sink = 0;
    auto step = [&](bool in_parallel) {
      for (std::size_t r = 0; r < rows.size(); ++r) std::memcpy(buffers[r].data(), rows[r].data(), rows[r].size() * 4);
      const auto start = std::chrono::steady_clock::now();
      auto one = [&](std::size_t r) { sink = sink + samplers[r]->sample(buffers[r]); };
      if (in_parallel)
        pool.for_each(rows.size(), one);
      else
        for (std::size_t r = 0; r < rows.size(); ++r) one(r);
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    for (int round = 0; round < rounds; ++round) {
      const bool first = round % 2 == 0;
      (first ? serial : parallel).push_back(step(!first));
      (first ? parallel : serial).push_back(step(first));
    }
    std::printf("  %-32s serial %7.2f  parallel %7.2f  serial/parallel %5.2f\n", name, median(serial) * 1e3,
                median(parallel) * 1e3, median(serial) / median(parallel));
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, batch = false;
  int rounds = 0;
  std::vector<std::size_t> vocabs = {32768, 131072, 262144};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::stoi(argv[++i]);
    } else if (arg == "--mode" && i + 1 < argc) {
      g_mode_filter = argv[++i];
    } else if (arg == "--batch") {
      batch = true;
    } else if (arg == "--vocab" && i + 1 < argc) {
      vocabs = {static_cast<std::size_t>(std::stoul(argv[++i]))};
    } else {
      std::fprintf(stderr, "usage: sampling_bench [--quick] [--rounds N] [--vocab V] [--mode TEXT] [--batch]\n");
      return 2;
    }
  }
  if (rounds <= 0) rounds = quick ? 3 : 9;
  std::printf("ogai sampling per token: the current Sampler (new) against the sampler it replaced (old,\n"
              "tests/sampling/legacy_sampler.h) and a pass that sums the row (floor), same rows, same process\n");
  const std::vector<std::vector<float>> model = stories_rows();
  const std::size_t row_count = quick ? 8 : 16;
  for (std::size_t vocab : vocabs) {
    std::vector<std::vector<float>> trained, uniform;
    for (std::size_t r = 0; r < row_count; ++r) {
      trained.push_back(grow(model[(r * 4 + 5) % model.size()], vocab, r + 1));
      uniform.push_back(uniform_row(vocab, 1000 + r));
    }
    if (batch) {
      run_batch("trained (stories260k)", trained, rounds * 2 + 1);
      continue;
    }
    run_shape("trained (stories260k)", trained, rounds);
    run_shape("uniform U[0,1)", uniform, rounds);
  }
  return 0;
}
