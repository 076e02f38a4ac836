// audio_tensor_as (src/workflow/audio_tensor.h): an audio program's float or integer data as the
// dtype of the port it feeds — bool masks, narrowed integers, float16 — and the kinds that do
// not fit refused naming the port and both types.
#include <gtest/gtest.h>

#include <cstring>

#include "base/error.h"
#include "base/half.h"
#include "workflow/audio_tensor.h"

namespace ogai::workflow {
namespace {

media::audio::AudioTensor ints(std::vector<std::int64_t> v) {
  media::audio::AudioTensor t;
  t.name = "mask";
  t.integer = true;
  t.shape = {1, static_cast<std::int64_t>(v.size())};
  t.i64 = std::move(v);
  return t;
}

TEST(AudioTensor, IntegerMaskBecomesBool) {
  const ort::Tensor out = audio_tensor_as(ints({1, 0, 2, 0}), DataType::kBool, {1, 4}, "port");
  ASSERT_EQ(out.dtype(), DataType::kBool);
  EXPECT_EQ(out.shape(), (ort::Shape{1, 4}));
  const auto* b = static_cast<const std::uint8_t*>(out.raw_data());
  EXPECT_EQ((std::vector<int>{b[0], b[1], b[2], b[3]}), (std::vector<int>{1, 0, 1, 0}));
}

TEST(AudioTensor, IntegersNarrowAndKeepTheirValues) {
  const ort::Tensor i32 = audio_tensor_as(ints({7, -3}), DataType::kInt32, {2}, "port");
  EXPECT_EQ(static_cast<const std::int32_t*>(i32.raw_data())[1], -3);
  const ort::Tensor u8 = audio_tensor_as(ints({200, 1}), DataType::kUint8, {1, 2}, "port");
  EXPECT_EQ(static_cast<const std::uint8_t*>(u8.raw_data())[0], 200);
  const ort::Tensor i64 = audio_tensor_as(ints({5, 1ll << 40}), DataType::kInt64, {1, 2}, "port");
  EXPECT_EQ(static_cast<const std::int64_t*>(i64.raw_data())[1], 1ll << 40);
}

TEST(AudioTensor, FloatsConvertToHalf) {
  media::audio::AudioTensor t;
  t.shape = {3};
  t.f32 = {0.5f, -2.0f, 1.0f / 3.0f};
  const ort::Tensor h = audio_tensor_as(t, DataType::kFloat16, {1, 3}, "port");
  const auto* d = static_cast<const std::uint16_t*>(h.raw_data());
  EXPECT_EQ(half_to_float(d[0]), 0.5f);
  EXPECT_EQ(half_to_float(d[1]), -2.0f);
  EXPECT_NEAR(half_to_float(d[2]), 1.0f / 3.0f, 1e-3f);
}

TEST(AudioTensor, KindsThatDoNotFitAreRefusedNamingThePort) {
  media::audio::AudioTensor f;
  f.shape = {1};
  f.f32 = {1.0f};
  try {
    audio_tensor_as(f, DataType::kBool, {1}, "encoder input 'input_features_mask'");
    FAIL() << "float data fed a bool port";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("encoder input 'input_features_mask'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bool"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("float data"), std::string::npos) << e.what();
  }
  EXPECT_THROW(audio_tensor_as(ints({1}), DataType::kFloat32, {1, 1}, "port"), Error);
  EXPECT_THROW(audio_tensor_as(f, DataType::kFloat64, {1}, "port"), Error);
}

}  // namespace
}  // namespace ogai::workflow
