// ort::Memory, copy_ranges and ort::Binding on the CPU provider: host copies move each range,
// ONNX Runtime's copy (the device path) refuses clearly without a registered data transfer, bad
// ranges are refused, and a bound run
// (outputs allocated by ORT or written into a caller's tensor) equals Session::run_into bitwise.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <numeric>

#include "base/error.h"
#include "ort/io_binding.h"
#include "ort/memory.h"
#include "ort/session.h"

namespace ogai {
namespace {

const std::filesystem::path kStories = std::filesystem::path(OGAI_SHARED_DIR) / "models/stories260k/model.onnx";

ort::Tensor counting(std::int64_t n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 1.0f);
  return ort::Tensor::copy_of<float>(v, {n});
}

TEST(MemoryTest, HostCopyMovesEachRange) {
  ort::Tensor src = counting(64);
  const std::vector<ort::ByteRange> ranges = {{0, 16, 12}, {40, 100, 24}, {200, 0, 8}, {4, 240, 0}};
  ort::Tensor dst = ort::Memory::host().zeros(DataType::kFloat32, {64});
  ort::copy_ranges(src, dst, ranges);
  auto v = dst.span<float>();
  EXPECT_EQ(v[4], 1.0f);  // bytes 16.. <- bytes 0..
  EXPECT_EQ(v[6], 3.0f);
  EXPECT_EQ(v[7], 0.0f);    // 12 bytes only
  EXPECT_EQ(v[25], 11.0f);  // bytes 100.. <- bytes 40..
  EXPECT_EQ(v[30], 16.0f);
  EXPECT_EQ(v[0], 51.0f);  // bytes 0.. <- bytes 200..
  EXPECT_EQ(v[60], 0.0f);  // an empty range copies nothing
}

// ONNX Runtime's CopyTensors (the device path) needs a data transfer registered in the
// environment; the CPU-only library registers none, not even host to host. The error must say
// so, naming both locations, instead of copying some other way.
// A narrowed tensor views the first bytes of its owner's buffer, keeps the owner alive after the
// owner's handle is gone, never nests owners, and refuses to grow.
TEST(MemoryTest, NarrowedTensorKeepsItsOwnersBuffer) {
  ort::Tensor t = ort::Tensor::allocate(DataType::kFloat32, {2, 3});
  std::iota(t.span<float>().begin(), t.span<float>().end(), 0.0f);
  const void* buffer = t.raw_data();
  ort::Tensor narrow = ort::Tensor::narrowed(std::move(t), {1, 4});
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(narrow.raw_data(), buffer);
  ASSERT_EQ(narrow.shape(), (ort::Shape{1, 4}));
  EXPECT_EQ(narrow.span<float>()[3], 3.0f);
  ort::Tensor narrower = ort::Tensor::narrowed(std::move(narrow), {2});
  EXPECT_EQ(narrower.raw_data(), buffer);
  ort::Tensor moved = std::move(narrower);  // the owner travels with the tensor
  EXPECT_EQ(moved.span<float>()[1], 1.0f);
  EXPECT_THROW(ort::Tensor::narrowed(std::move(moved), {3}), Error);
}

TEST(MemoryTest, RuntimeCopyWithoutADataTransferSaysWhy) {
  ort::Tensor src = counting(8);
  ort::Tensor dst = ort::Tensor::zeros(DataType::kFloat32, {8});
  const ort::ByteRange all{0, 0, 32};
  try {
    ort::copy_ranges(src, dst, {&all, 1}, ort::CopyPath::kRuntime);
    FAIL() << "CopyTensors copied host to host: update docs/gpu.md and this test";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("host -> host"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("CopyTensors"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dst.span<float>()[0], 0.0f);
}

TEST(MemoryTest, RangeOutsideATensorIsRefused) {
  ort::Tensor src = counting(4);
  ort::Tensor dst = ort::Tensor::zeros(DataType::kFloat32, {2});
  const ort::ByteRange too_far{0, 4, 8};
  try {
    ort::copy_ranges(src, dst, {&too_far, 1});
    FAIL() << "an 8-byte range at offset 4 of an 8-byte tensor was copied";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInternal);
    EXPECT_NE(std::string(e.what()).find("8 bytes from offset 0"), std::string::npos) << e.what();
  }
}

TEST(MemoryTest, HostMemoryAndDeviceTensorsAreNotReadOnTheHost) {
  ort::Memory host = ort::Memory::host();
  EXPECT_TRUE(host.location().host());
  ort::Tensor z = host.zeros(DataType::kFloat32, {3});
  EXPECT_TRUE(z.location().host());
  EXPECT_EQ(z.span<float>()[2], 0.0f);
  float storage[2] = {0, 0};
  ort::Tensor device_view = ort::Tensor::view(DataType::kFloat32, {2}, storage, {ort::Device::kCuda, 1});
  EXPECT_EQ(ort::location_name(device_view.location()), "cuda:1");
  EXPECT_THROW(device_view.span<float>(), Error);
  ort::Session session = ort::Session::open(kStories);
  EXPECT_TRUE(session.device().host());
  EXPECT_TRUE(ort::Memory::of(session).location().host());
}

struct StoriesRun {
  std::vector<std::string> in_names, out_names;
  std::vector<ort::Tensor> inputs;
  std::vector<const ort::Tensor*> pointers;
};

StoriesRun stories_prompt() {
  StoriesRun r;
  const std::vector<std::int64_t> ids = {1, 403, 407, 261, 378}, mask(5, 1), positions = {0, 1, 2, 3, 4};
  r.in_names = {"input_ids", "attention_mask", "position_ids"};
  r.inputs.push_back(ort::Tensor::copy_of<std::int64_t>(ids, {1, 5}));
  r.inputs.push_back(ort::Tensor::copy_of<std::int64_t>(mask, {1, 5}));
  r.inputs.push_back(ort::Tensor::copy_of<std::int64_t>(positions, {1, 5}));
  r.out_names = {"logits"};
  for (int layer = 0; layer < 5; ++layer) {
    for (const char* kind : {"key", "value"}) {
      r.in_names.push_back("past_key_values." + std::to_string(layer) + "." + kind);
      r.inputs.push_back(ort::Tensor::zeros(DataType::kFloat32, {1, 4, 0, 8}));
      r.out_names.push_back("present." + std::to_string(layer) + "." + kind);
    }
  }
  for (const auto& t : r.inputs) r.pointers.push_back(&t);
  return r;
}

TEST(BindingTest, BoundRunEqualsPlainRunBitwise) {
  ort::SessionOptions options;
  options.intra_op_threads = 1;
  ort::Session session = ort::Session::open(kStories, options);
  StoriesRun r = stories_prompt();
  std::vector<ort::Tensor> plain(r.out_names.size());
  session.run_into(r.in_names, r.pointers, r.out_names, plain);

  ort::Binding binding(session);
  std::vector<ort::Tensor> bound(r.out_names.size());
  bound[1] = ort::Tensor::allocate(DataType::kFloat32, {1, 4, 5, 8});  // a caller's destination
  const void* destination = bound[1].raw_data();
  for (int round = 0; round < 2; ++round) {  // the binding is reused after clear()
    binding.clear();
    for (std::size_t i = 0; i < r.inputs.size(); ++i) binding.bind_input(r.in_names[i], r.inputs[i]);
    for (std::size_t i = 0; i < r.out_names.size(); ++i) {
      if (!bound[i].empty() && i == 1)
        binding.bind_output(r.out_names[i], bound[i]);
      else
        binding.bind_output_to(r.out_names[i], ort::Location{});
    }
    for (std::size_t i = 0; i < bound.size(); ++i)
      if (i != 1) bound[i] = ort::Tensor();
    binding.run();
    binding.take_outputs(bound);
    EXPECT_EQ(bound[1].raw_data(), destination) << "the pre-allocated output was replaced";
    for (std::size_t i = 0; i < plain.size(); ++i) {
      ASSERT_EQ(bound[i].shape(), plain[i].shape()) << r.out_names[i];
      EXPECT_EQ(std::memcmp(bound[i].raw_data(), plain[i].raw_data(), plain[i].byte_size()), 0) << r.out_names[i];
      EXPECT_TRUE(bound[i].location().host());
    }
  }
}

TEST(BindingTest, UnknownOutputNameIsARuntimeError) {
  ort::Session session = ort::Session::open(kStories);
  ort::Binding binding(session);
  try {
    binding.bind_output_to("no_such_output", ort::Location{});
    binding.run();
    FAIL() << "binding an unknown output succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kRuntime);
    EXPECT_NE(std::string(e.what()).find("model.onnx"), std::string::npos) << e.what();
  }
}

TEST(BindingTest, AMistypedInputIsNamedInTheError) {
  ort::Session session = ort::Session::open(kStories);
  StoriesRun r = stories_prompt();
  r.inputs[0] = ort::Tensor::zeros(DataType::kFloat32, {1, 5});  // input_ids must be int64
  ort::Binding binding(session);
  for (std::size_t i = 0; i < r.inputs.size(); ++i) binding.bind_input(r.in_names[i], r.inputs[i]);
  for (const auto& name : r.out_names) binding.bind_output_to(name, ort::Location{});
  try {
    binding.run();
    FAIL() << "a float32 input_ids ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kRuntime);
    EXPECT_NE(std::string(e.what()).find("input 'input_ids' was fed float32 [1, 5]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ogai
