// The CTC / greedy-argmax decoder (src/workflow/ctc_decode.h) on hand-made logits: the axis order
// the profile declares, half-precision logits, ties, per-row lengths, and the errors for logits and
// lengths it cannot read. (The decoder through `ogai run` on an ONNX encoder, against a NumPy
// oracle: tests/e2e/ctc_run_cli_test.py.)
#include <gtest/gtest.h>

#include <cmath>

#include "base/error.h"
#include "base/half.h"
#include "workflow/ctc_decode.h"

namespace ogai::workflow {
namespace {

CtcSpec spec() {
  CtcSpec s;
  s.where = "profiles.t.decoding";
  s.collapse_repeats = true;
  s.tokens = {"_", "h", "i", " ", "!"};
  s.word_delimiter = " ";
  return s;
}

// [rows, frames, classes] logits whose argmax per frame is `path[r][t]` (value 1, others 0).
std::vector<float> one_hot(const std::vector<std::vector<int>>& path, int classes) {
  std::vector<float> v;
  for (const auto& row : path)
    for (int c : row)
      for (int k = 0; k < classes; ++k) v.push_back(k == c ? 1.0f : 0.0f);
  return v;
}

std::string what(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CtcDecode, CollapsesThenDropsBlankAndSplitsWords) {
  const CtcDecoder d(spec());
  auto logits = ort::Tensor::copy_of<float>(one_hot({{1, 1, 0, 1, 2, 3, 3, 0, 2, 4}}, 5), {1, 10, 5});
  const auto rows = d.decode(logits, nullptr);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].ids, (std::vector<std::int64_t>{1, 1, 2, 3, 2, 4}));
  EXPECT_EQ(rows[0].text, "hhi i!");
}

TEST(CtcDecode, ReadsTheDeclaredAxisOrderAndHalfLogits) {
  CtcSpec s = spec();
  s.time_axis = 2;  // [batch, class, time]
  s.class_axis = 1;
  const CtcDecoder d(s);
  const std::vector<std::vector<int>> path = {{1, 2, 2}, {3, 1, 0}};
  std::vector<std::uint16_t> bits(2 * 5 * 3);
  for (int r = 0; r < 2; ++r)
    for (int t = 0; t < 3; ++t)
      for (int c = 0; c < 5; ++c) bits[(r * 5 + c) * 3 + t] = float_to_half(c == path[r][t] ? 2.0f : -1.0f);
  auto logits = ort::Tensor::copy_of<std::uint16_t>(bits, {2, 5, 3});
  const auto rows = d.decode(logits, nullptr);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].text, "hi");
  EXPECT_EQ(rows[1].text, "h");  // a leading delimiter makes no empty word
}

TEST(CtcDecode, RankTwoIsOneRowAndTiesTakeTheLowestId) {
  const CtcDecoder d(spec());
  auto logits = ort::Tensor::copy_of<float>(std::vector<float>{0, 3, 3, 0, 0, 1, 1, 1, 1, 1}, {2, 5});
  const auto rows = d.decode(logits, nullptr);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].ids, (std::vector<std::int64_t>{1}));  // frame 0: h (tie with i), frame 1: blank (all tie)
}

TEST(CtcDecode, LengthsCutEachRow) {
  const CtcDecoder d(spec());
  auto logits = ort::Tensor::copy_of<float>(one_hot({{1, 2, 4}, {2, 4, 1}}, 5), {2, 3, 5});
  auto lengths = ort::Tensor::copy_of<std::int32_t>(std::vector<std::int32_t>{3, 1}, {2});
  const auto rows = d.decode(logits, &lengths);
  EXPECT_EQ(rows[0].text, "hi!");
  EXPECT_EQ(rows[1].text, "i");
  auto zero = ort::Tensor::copy_of<std::int64_t>(std::vector<std::int64_t>{0, 0}, {2});
  EXPECT_EQ(d.decode(logits, &zero)[1].text, "");
}

TEST(CtcDecode, GreedyArgmaxWithoutBlankKeepsEveryClass) {
  CtcSpec s = spec();
  s.blank_removed = false;
  s.collapse_repeats = false;
  s.word_delimiter.reset();
  s.ignored_tokens = {"!"};
  const CtcDecoder d(s);
  auto logits = ort::Tensor::copy_of<float>(one_hot({{1, 1, 0, 3, 4, 2}}, 5), {1, 6, 5});
  EXPECT_EQ(d.decode(logits, nullptr)[0].text, "hh_ i");
}

TEST(CtcDecode, RefusesWhatItCannotRead) {
  const CtcDecoder d(spec());
  auto logits = ort::Tensor::copy_of<float>(one_hot({{1, 2}}, 5), {1, 2, 5});
  auto too_long = ort::Tensor::copy_of<std::int64_t>(std::vector<std::int64_t>{3}, {1});
  EXPECT_NE(what([&] { d.decode(logits, &too_long); }).find("profiles.t.decoding.lengths: row 0 has length 3"),
            std::string::npos);
  auto two = ort::Tensor::copy_of<std::int64_t>(std::vector<std::int64_t>{1, 1}, {2});
  EXPECT_NE(what([&] { d.decode(logits, &two); }).find("2 lengths"), std::string::npos);
  auto ints = ort::Tensor::copy_of<std::int64_t>(std::vector<std::int64_t>(10, 0), {1, 2, 5});
  EXPECT_NE(what([&] { d.decode(ints, nullptr); }).find("the logits are int64"), std::string::npos);
  auto rank4 = ort::Tensor::copy_of<float>(std::vector<float>(10, 0), {1, 1, 2, 5});
  EXPECT_NE(what([&] { d.decode(rank4, nullptr); }).find("rank 2"), std::string::npos);
  auto nan = ort::Tensor::copy_of<float>(std::vector<float>{0, NAN, 0, 0, 0}, {1, 1, 5});
  EXPECT_NE(what([&] { d.decode(nan, nullptr); }).find("row 0 frame 0 class 1 is NaN"), std::string::npos);
  CtcSpec small = spec();
  small.tokens = {"_", "h"};
  const CtcDecoder s(small);
  EXPECT_NE(what([&] { s.decode(logits, nullptr); }).find("class id 2 is outside the vocabulary of 2 tokens"),
            std::string::npos);
  CtcSpec sized = spec();
  sized.classes = 4;
  EXPECT_NE(what([&] { CtcDecoder(sized).decode(logits, nullptr); }).find("vocabulary.size: the logits have 5 classes"),
            std::string::npos);
}

}  // namespace
}  // namespace ogai::workflow
