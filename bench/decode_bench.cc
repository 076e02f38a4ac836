// ogai's decode loop vs. a bare ONNX Runtime loop on the same graph (stories260k), side by side
// in one process: greedy tokens must be identical; prints tokens/s of both and the ratio.
//   decode_bench [--steps N] [--runs N]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/bare_ort_loop.h"
#include "bench/bench_util.h"
#include "generate/decoder.h"

namespace {

const std::vector<std::int64_t> kPrompt = {1, 403, 407, 261, 378};

struct LoopResult {
  std::vector<std::int64_t> tokens;
  double decode_seconds = 0;
};

std::int64_t argmax(std::span<const float> v) { return std::max_element(v.begin(), v.end()) - v.begin(); }

LoopResult run_ogai_decoder(const ogai::generate::Decoder& d, int steps) {
  using namespace ogai;
  kv::KvCache cache(d.spec().cache, 1);
  generate::AttentionState attention(1);
  LoopResult r;
  auto out = d.step(kPrompt, static_cast<std::int64_t>(kPrompt.size()), {}, attention, cache);
  std::int64_t next = argmax(out.row_logits(0, static_cast<std::int64_t>(kPrompt.size()) - 1));
  r.tokens.push_back(next);
  r.decode_seconds = bench::time_once([&] {
    for (int i = 0; i < steps; ++i) {
      out = d.step(std::span<const std::int64_t>(&next, 1), 1, {}, attention, cache);
      next = argmax(out.row_logits(0, 0));
      r.tokens.push_back(next);
    }
  });
  return r;
}

ogai::generate::DecoderSpec stories_spec(const std::string& model) {
  using namespace ogai;
  generate::DecoderSpec spec;
  spec.artifact = model;
  spec.token_input = "input_ids";
  spec.mask_input = "attention_mask";
  spec.position_input = "position_ids";
  spec.logits_output = "logits";
  spec.cache.max_length = 512;
  for (int layer = 0; layer < 5; ++layer)
    for (const char* kind : {"key", "value"})
      spec.cache.pairs.push_back({"full_attention", "past_key_values." + std::to_string(layer) + "." + kind,
                                  "present." + std::to_string(layer) + "." + kind, DataType::kFloat32, 4, 8});
  return spec;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ogai;
  int steps = 400, runs = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string arg = argv[i];
    if (arg == "--steps") steps = std::atoi(argv[i + 1]);
    else if (arg == "--runs") runs = std::atoi(argv[i + 1]);
  }
  std::string model = std::string(OGAI_SHARED_DIR) + "/models/stories260k/model.onnx";
  ort::SessionOptions options;
  options.intra_op_threads = 1;
  generate::Decoder decoder(stories_spec(model), options);
  bench::BareOrtLoop bare_loop(model, 5, 4, 8);
  bare_loop.run(kPrompt, 16);  // warm both sessions up the same way
  run_ogai_decoder(decoder, 16);
  double best_bare = 1e300, best_ogai = 1e300;
  bool same = true;
  for (int r = 0; r < runs; ++r) {  // interleaved, best of `runs`
    auto bare = bare_loop.run(kPrompt, steps);
    auto ours = run_ogai_decoder(decoder, steps);
    same = same && bare.tokens == ours.tokens;
    best_bare = std::min(best_bare, bare.decode_seconds);
    best_ogai = std::min(best_ogai, ours.decode_seconds);
  }
  std::printf("stories260k greedy decode, %d steps, best of %d, one intra-op thread\n", steps, runs);
  std::printf("bare ONNX Runtime loop: %9.1f tok/s\n", steps / best_bare);
  std::printf("ogai decoder loop:      %9.1f tok/s\n", steps / best_ogai);
  std::printf("ratio ogai/bare:        %9.3f  (goal >= 0.95)\n", best_bare / best_ogai);
  std::printf("identical tokens:       %s\n", same ? "yes" : "NO");
  return same ? 0 : 1;
}
