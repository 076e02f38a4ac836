// A single-step package (stories260k, tiny-e2b: invoke the decoder, emit logits) driven step by step through
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

std::int64_t argmax(const std::vector<float>& v) { return std::max_element(v.begin(), v.end()) - v.begin(); }

// The application alias of workflow input `name` (or the name itself).
std::string alias_of(const metadata::Workflow& wf, const std::string& name) {
  const auto* input = metadata::find_named(wf.inputs, name);
  return input && input->source.kind == metadata::InputSource::Kind::kApplication ? input->source.name : name;
}

void check_package(const std::filesystem::path& package, int steps) {
  const Program program = load_program(package);
  ASSERT_FALSE(needs_interpreter(program.package)) << "a single-step package keeps the native loop";
  const auto& wf = program.workflow();
  const auto& abi = *program.package.decoder;
  const metadata::InvokeStep* invoke = nullptr;
  for (const auto& step : wf.steps)
    if (const auto* i = std::get_if<metadata::InvokeStep>(&step.body)) invoke = i;
  ASSERT_NE(invoke, nullptr);
  generate::Decoder native(generate::make_package_config(program.package).decoder, {});
  kv::KvCache cache(native.spec().cache, 1);
  generate::AttentionState attention(1);

  // Per KV pair: the alias the interpreter is fed (the past), and the value that holds the present.
  std::vector<std::pair<std::string, std::string>> kv;
  std::map<std::string, ort::Tensor> pasts;
  for (const auto& pair : abi.kv_pairs) {
    const std::string& past_value = *metadata::find_named(invoke->inputs, pair.input);
    const std::string alias = alias_of(wf, past_value);
    kv.emplace_back(alias, *metadata::find_named(invoke->outputs, pair.output));
    ort::Shape shape{1, pair.geometry.kv_heads, 0, pair.geometry.head_dim};
    pasts.emplace(alias, f32({}, shape));
  }
  const std::string ids_name = *metadata::find_named(invoke->inputs, *abi.token_ids_input);
  std::vector<TokenId> tokens = {1, 403, 407, 261, 378};
  std::int64_t position = 0;
  for (int step = 0; step < steps; ++step) {
    const auto n = static_cast<std::int64_t>(tokens.size());
    auto out = native.step(tokens, n, {}, attention, cache);
    const auto expected = last_row(out.logits);

    RunRequest r;
    r.tensors.emplace(ids_name, i64(std::vector<std::int64_t>(tokens.begin(), tokens.end()), {1, n}));
    if (abi.attention_mask_input)
      r.tensors.emplace(alias_of(wf, *metadata::find_named(invoke->inputs, *abi.attention_mask_input)),
                        i64(std::vector<std::int64_t>(static_cast<std::size_t>(position + n), 1), {1, position + n}));
    if (abi.position_ids_input) {
      std::vector<std::int64_t> positions;
      for (std::int64_t i = 0; i < n; ++i) positions.push_back(position + i);
      r.tensors.emplace(alias_of(wf, *metadata::find_named(invoke->inputs, *abi.position_ids_input)),
                        i64(positions, {1, n}));
    }
    r.tensors.emplace("active", boolean({true}));
    r.tensors.emplace("done", boolean({false}));
    r.tensors.emplace("accepted_len", i64({0}));
    for (auto& [alias, t] : pasts) r.tensors.emplace(alias, std::move(t));
    for (const auto& entry : kv) r.capture.push_back(entry.second);
    auto result = run(program, std::move(r));
    const auto got = last_row(result.outputs.begin()->second);
    ASSERT_EQ(got.size(), expected.size());
    float worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - expected[i]));
    EXPECT_LE(worst, 1e-5f) << package << " step " << step;
    EXPECT_EQ(argmax(got), argmax(expected)) << package << " step " << step;

    pasts.clear();
    for (const auto& [alias, present] : kv) pasts.emplace(alias, std::move(result.values.at(present)));
    position += n;
    tokens = {static_cast<TokenId>(argmax(expected))};
  }
}

TEST(SingleStep, Stories260kStepsMatchTheNativeDecoder) { check_package(kStories, 6); }

TEST(SingleStep, TinyE2bStepsMatchTheNativeDecoder) {
  check_package(std::filesystem::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b", 6);
}

}  // namespace
}  // namespace ogai::workflow::testing
