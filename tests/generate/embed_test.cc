// Model::embed (generate/embedder.h) against a direct ONNX Runtime run of the same graph: each
// input alone, batch 1, empty pasts, the hidden_states.9 output pooled and normalized here. On
// tiny-e2b (float32) and tiny-e2b-fp16 (the float16 hidden state converted), both poolings,
// inputs batched in one run and across runs (more than Embedder::kMaxRows); plus the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "base/half.h"
#include "generate/embedder.h"
#include "ogai/ogai.h"
#include "ort/session.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages";

// Input i of n: a deterministic token sequence of 1 to 40 ids in the tiny vocabulary (515).
std::vector<std::vector<std::int32_t>> inputs(int n) {
  std::vector<std::vector<std::int32_t>> out;
  for (int i = 0; i < n; ++i) {
    std::vector<std::int32_t> ids{2};
    for (int k = 0; k < (i * 7) % 40; ++k) ids.push_back(3 + (i * 31 + k * 17) % 500);
    out.push_back(std::move(ids));
  }
  return out;
}

// The graph run directly: [S, hidden] float32 hidden states of `ids` alone.
std::vector<float> direct_hidden(const ort::Session& session, const std::vector<std::int32_t>& ids) {
  const auto s = static_cast<std::int64_t>(ids.size());
  std::vector<std::int64_t> tokens(ids.begin(), ids.end()), mask(ids.size(), 1);
  std::vector<std::string> names{"input_ids", "attention_mask"};
  std::vector<ort::Tensor> owned;
  owned.push_back(ort::Tensor::view(DataType::kInt64, {1, s}, tokens.data()));
  owned.push_back(ort::Tensor::view(DataType::kInt64, {1, s}, mask.data()));
  for (const auto& in : session.inputs()) {
    if (!in.name.starts_with("past_key_values.")) continue;
    names.push_back(in.name);
    owned.push_back(ort::Tensor::zeros(in.dtype, {1, in.shape[1], 0, in.shape[3]}));
  }
  std::vector<const ort::Tensor*> feeds;
  for (const auto& t : owned) feeds.push_back(&t);
  const std::vector<std::string> wanted{"hidden_states.9"};
  std::vector<ort::Tensor> out = session.run(names, feeds, wanted);
  std::vector<float> hidden(static_cast<std::size_t>(out[0].element_count()));
  convert_floats(out[0].raw_data(), out[0].dtype(), hidden.data(), DataType::kFloat32, hidden.size());
  return hidden;
}

std::vector<float> pooled(const std::vector<float>& hidden, std::size_t width, Pooling pooling) {
  const std::size_t s = hidden.size() / width;
  std::vector<double> sum(width, 0.0);
  for (std::size_t p = pooling == Pooling::kLast ? s - 1 : 0; p < s; ++p)
    for (std::size_t i = 0; i < width; ++i) sum[i] += hidden[p * width + i];
  double norm = 0;
  for (double x : sum) norm += x * x;
  std::vector<float> v;
  for (double x : sum) v.push_back(static_cast<float>(x / std::sqrt(norm)));
  return v;
}

double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, double(std::fabs(a[i] - b[i])));
  return worst;
}

void expect_direct(const std::string& package, double tolerance) {
  SCOPED_TRACE(package);
  auto model = Model::load(kFixtures / package);
  EXPECT_EQ(model->info().embedding_width, 32);
  EXPECT_EQ(model->info().embedding_unavailable, "");
  ort::Session session = ort::Session::open(kFixtures / package / "model.onnx");
  const auto in = inputs(12);
  for (Pooling pooling : {Pooling::kLast, Pooling::kMean}) {
    auto got = model->embed(in, pooling);  // one batched run (12 rows, at most 40 positions)
    ASSERT_EQ(got.size(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i)
      EXPECT_LE(max_diff(got[i], pooled(direct_hidden(session, in[i]), 32, pooling)), tolerance)
          << "input " << i << (pooling == Pooling::kLast ? " last" : " mean");
  }
}

TEST(EmbedTest, EqualsADirectRunOfTheGraphTinyE2b) { expect_direct("tiny-e2b", 1e-5); }
TEST(EmbedTest, EqualsADirectRunOfTheGraphTinyE2bFp16) { expect_direct("tiny-e2b-fp16", 2e-3); }

TEST(EmbedTest, BatchedRunsEqualEachInputAlone) {
  auto model = Model::load(kFixtures / "tiny-e2b");
  const auto in = inputs(generate::Embedder::kMaxRows + 6);  // two runs at least
  auto batched = model->embed(in, Pooling::kMean);
  for (std::size_t i = 0; i < in.size(); ++i) {
    auto alone = model->embed(std::span(&in[i], 1), Pooling::kMean);
    EXPECT_LE(max_diff(batched[i], alone[0]), 1e-5) << "input " << i;
  }
  auto raw = model->embed(std::span(in.data(), 3), Pooling::kLast, false);
  double norm = 0;
  for (float x : raw[2]) norm += double(x) * x;
  EXPECT_GT(std::fabs(std::sqrt(norm) - 1), 1e-3) << "normalize=false keeps the hidden state's own norm";
  EXPECT_TRUE(model->embed(std::span<const std::vector<std::int32_t>>(), Pooling::kLast).empty());
}

void expect_error(const Model& model, std::vector<std::vector<std::int32_t>> in, ErrorCode code,
                  const std::string& where, const std::string& says) {
  try {
    model.embed(in);
    ADD_FAILURE() << "no error for " << where;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_EQ(e.where(), where) << e.what();
    EXPECT_NE(e.message().find(says), std::string::npos) << e.what();
  }
}

TEST(EmbedTest, RefusesWhatItCannotEmbed) {
  auto model = Model::load(kFixtures / "tiny-e2b");
  expect_error(*model, {{2, 3}, {}}, ErrorCode::kInvalidArgument, "input[1]", "no tokens");
  expect_error(*model, {{2, 515}}, ErrorCode::kInvalidArgument, "input[0]", "[0, 515)");
  expect_error(*model, {{2}, std::vector<std::int32_t>(513, 7)}, ErrorCode::kInvalidArgument, "input[1]",
               "513 tokens, more than the model's context of 512");
  auto capped = Model::load(kFixtures / "tiny-e2b", [] {
    LoadOptions o;
    o.max_context_length = 16;
    return o;
  }());
  expect_error(*capped, {std::vector<std::int32_t>(17, 7)}, ErrorCode::kInvalidArgument, "input[0]", "context of 16");
  auto stories = Model::load(fs::path(OGAI_BINARY_DIR) / "packages/stories260k");
  EXPECT_EQ(stories->info().embedding_width, 0);
  EXPECT_NE(stories->info().embedding_unavailable.find("hidden_states"), std::string::npos);
  expect_error(*stories, {{1, 2}}, ErrorCode::kUnsupported, "model", "no output with metadata role hidden_states");
}

}  // namespace
}  // namespace ogai
