// A single-step package (stories260k: invoke the decoder, emit logits) driven step by step through
// the interpreter gives the same logits as ogai's native decoder: the interpreter's caller moves
// each step's presents back to the pasts, as the native loop's KV service does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "generate/decoder.h"
#include "generate/package_config.h"
#include "kv/kv_cache.h"
#include "support.h"
#include "workflow/tensor_ops.h"

namespace ogai::workflow::testing {
namespace {

const std::filesystem::path kStories = std::filesystem::path(OGAI_BINARY_DIR) / "packages" / "stories260k";

std::vector<float> last_row(const ort::Tensor& logits) {
  const auto v = logits.span<float>();
  const auto vocab = static_cast<std::size_t>(logits.shape().back());
  return {v.end() - static_cast<std::ptrdiff_t>(vocab), v.end()};
}

std::int64_t argmax(const std::vector<float>& v) {
  return std::max_element(v.begin(), v.end()) - v.begin();
}

TEST(SingleStep, InterpreterStepsMatchTheNativeDecoder) {
  const Program program = load_program(kStories);
  ASSERT_FALSE(needs_interpreter(program.package)) << "a single-step package keeps the native loop";
  generate::Decoder native(generate::make_package_config(program.package).decoder, {});
  kv::KvCache cache(native.spec().cache, 1);
  generate::AttentionState attention(1);

  std::vector<std::int64_t> tokens = {1, 403, 407, 261, 378};  // "Once upon a time"
  std::map<std::string, ort::Tensor> pasts;
  for (int layer = 0; layer < 5; ++layer)
    for (const char* kind : {"key", "value"})
      pasts.emplace(std::string("full_") + kind + "_" + std::to_string(layer), f32({}, {1, 4, 0, 8}));
  std::int64_t position = 0;
  for (int step = 0; step < 6; ++step) {
    const auto n = static_cast<std::int64_t>(tokens.size());
    auto out = native.step(tokens, n, {}, attention, cache);
    const auto expected = last_row(out.logits);

    RunRequest r;
    r.tensors.emplace("request.input_ids", i64(tokens, {1, n}));
    r.tensors.emplace("attention_mask", i64(std::vector<std::int64_t>(static_cast<std::size_t>(position + n), 1),
                                            {1, position + n}));
    std::vector<std::int64_t> positions;
    for (std::int64_t i = 0; i < n; ++i) positions.push_back(position + i);
    r.tensors.emplace("position_ids", i64(positions, {1, n}));
    r.tensors.emplace("active", boolean({true}));
    r.tensors.emplace("done", boolean({false}));
    r.tensors.emplace("accepted_len", i64({0}));
    for (auto& [name, t] : pasts) {
      r.tensors.emplace(name, std::move(t));
      r.capture.push_back("decoder." + name);
    }
    auto result = run(program, std::move(r));
    const auto got = last_row(result.outputs.at("logits"));
    ASSERT_EQ(got.size(), expected.size());
    float worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - expected[i]));
    EXPECT_LE(worst, 1e-5f) << "step " << step;
    EXPECT_EQ(argmax(got), argmax(expected)) << "step " << step;

    pasts.clear();
    for (auto& [name, t] : result.values) pasts.emplace(name.substr(std::string("decoder.").size()), std::move(t));
    position += n;
    tokens = {argmax(expected)};
  }
}

}  // namespace
}  // namespace ogai::workflow::testing
