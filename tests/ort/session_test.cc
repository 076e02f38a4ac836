#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "base/error.h"
#include "base/file.h"
#include "ort/session.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
const fs::path kShared = OGAI_SHARED_DIR;
const fs::path kStories = kShared / "models/stories260k/model.onnx";

struct Feeds {
  std::vector<std::string> names;
  std::vector<ort::Tensor> tensors;
  void add(std::string name, ort::Tensor t) {
    names.push_back(std::move(name));
    tensors.push_back(std::move(t));
  }
  std::vector<const ort::Tensor*> pointers() const {
    std::vector<const ort::Tensor*> p;
    for (const auto& t : tensors) p.push_back(&t);
    return p;
  }
};

Feeds stories_prompt_feeds(const std::vector<std::int64_t>& ids) {
  Feeds f;
  auto n = static_cast<std::int64_t>(ids.size());
  std::vector<std::int64_t> mask(ids.size(), 1), positions(ids.size());
  for (std::int64_t i = 0; i < n; ++i) positions[i] = i;
  f.add("input_ids", ort::Tensor::copy_of<std::int64_t>(ids, {1, n}));
  f.add("attention_mask", ort::Tensor::copy_of<std::int64_t>(mask, {1, n}));
  f.add("position_ids", ort::Tensor::copy_of<std::int64_t>(positions, {1, n}));
  for (int layer = 0; layer < 5; ++layer)
    for (const char* kind : {"key", "value"})
      f.add("past_key_values." + std::to_string(layer) + "." + kind,
            ort::Tensor::zeros(DataType::kFloat32, {1, 4, 0, 8}));
  return f;
}

TEST(SessionTest, Stories260kFirstGoldenToken) {
  ort::SessionOptions options;
  options.intra_op_threads = 1;
  ort::Session s = ort::Session::open(kStories, options);
  Feeds f = stories_prompt_feeds({1, 403, 407, 261, 378});
  std::vector<std::string> outs = {"logits", "present.0.key"};
  auto results = s.run(f.names, f.pointers(), outs);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].shape(), (ort::Shape{1, 5, 512}));
  EXPECT_EQ(results[1].shape(), (ort::Shape{1, 4, 5, 8}));
  auto logits = results[0].span<float>().subspan(4 * 512, 512);
  auto argmax = std::max_element(logits.begin(), logits.end()) - logits.begin();
  EXPECT_EQ(argmax, 432);
}

TEST(SessionTest, ReportsPorts) {
  ort::Session s = ort::Session::open(kStories);
  const ort::PortInfo* past = s.find_input("past_key_values.4.value");
  ASSERT_NE(past, nullptr);
  EXPECT_EQ(past->dtype, DataType::kFloat32);
  EXPECT_EQ(past->shape, (ort::Shape{-1, 4, -1, 8}));
  EXPECT_EQ(past->symbols[2], "past_sequence_length");
  EXPECT_EQ(s.find_input("nope"), nullptr);
}

TEST(SessionTest, MissingFileIsNotFound) {
  try {
    ort::Session::open("/nonexistent/model.onnx");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.onnx"), std::string::npos);
  }
}

TEST(SessionTest, CorruptFileIsARuntimeErrorNamingTheFile) {
  fs::path p = fs::path(testing::TempDir()) / "corrupt.onnx";
  write_file(p, "this is not a protobuf");
  try {
    ort::Session::open(p);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kRuntime);
    EXPECT_NE(std::string(e.what()).find("corrupt.onnx"), std::string::npos);
  }
}

TEST(SessionTest, WrongTypedInputIsAClearError) {
  ort::Session s = ort::Session::open(kStories);
  Feeds f = stories_prompt_feeds({1, 403});
  std::vector<float> wrong = {1.f, 403.f};
  f.tensors[0] = ort::Tensor::copy_of<float>(wrong, {1, 2});
  std::vector<std::string> outs = {"logits"};
  try {
    s.run(f.names, f.pointers(), outs);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kRuntime);
    EXPECT_NE(std::string(e.what()).find("input_ids"), std::string::npos) << e.what();
  }
}

TEST(SessionTest, TextprotoDecoderFixtureLoads) {
  ort::Session s = ort::Session::open(kShared / "conformance/metadata/fixtures/decoder/model.onnx.textproto");
  EXPECT_FALSE(s.inputs().empty());
  EXPECT_FALSE(s.outputs().empty());
}

TEST(SessionTest, CudaRequestFailsClearlyOrRunsOnCuda) {
  ort::SessionOptions options;
  options.execution_provider = "cuda";
  try {
    ort::Session::open(kStories, options);  // a machine with a CUDA build and a GPU
  } catch (const Error& e) {
    EXPECT_TRUE(e.code() == ErrorCode::kUnsupported || e.code() == ErrorCode::kRuntime) << e.what();
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
  }
  options.allow_cpu_fallback = true;
  EXPECT_NO_THROW(ort::Session::open(kStories, options));
  options.execution_provider = "tpu";
  EXPECT_THROW(ort::Session::open(kStories, options), Error);
}

TEST(TensorTest, ViewsShareMemoryAndTypesAreChecked) {
  std::vector<std::int64_t> data = {1, 2, 3, 4, 5, 6};
  ort::Tensor t = ort::Tensor::view(DataType::kInt64, {2, 3}, data.data());
  EXPECT_EQ(t.element_count(), 6);
  t.span<std::int64_t>()[0] = 42;
  EXPECT_EQ(data[0], 42);
  EXPECT_THROW(t.span<float>(), Error);
  ort::Tensor empty = ort::Tensor::zeros(DataType::kFloat16, {1, 1, 0, 32});
  EXPECT_EQ(empty.byte_size(), 0u);
  std::vector<float> three = {1, 2, 3};
  EXPECT_THROW(ort::Tensor::copy_of<float>(three, {2, 2}), Error);
  ort::Tensor copy = ort::Tensor::copy_of(t);
  EXPECT_EQ(copy.span<std::int64_t>()[0], 42);
  EXPECT_NE(copy.raw_data(), t.raw_data());
}

}  // namespace
}  // namespace ogai
