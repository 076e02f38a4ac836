// Qwen-VL's 3-D rotary positions (src/generate/mrope_positions.h) against a NumPy oracle written
// from Hugging Face's get_rope_index semantics (tests/generate/mrope_oracle.py, Debian's
// /usr/bin/python3), on prompts with 0 .. 4 images of random grids and merges, plus hand-checked
// small cases and the refusals.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "generate/mrope_positions.h"
#include "ogai/error.h"

namespace ogai::generate {
namespace {

constexpr TokenId kStart = 7, kPad = 9, kEnd = 8;

struct Prompt {
  std::vector<TokenId> ids;
  std::vector<MropeGrid> grids;
  std::int64_t merge = 2;
};

Prompt random_prompt(std::mt19937& rng, int images) {
  Prompt p;
  p.merge = std::uniform_int_distribution<int>(1, 3)(rng);
  auto text = [&](int most) {
    const int n = std::uniform_int_distribution<int>(0, most)(rng);
    for (int i = 0; i < n; ++i) p.ids.push_back(std::uniform_int_distribution<TokenId>(10, 99)(rng));
  };
  for (int i = 0; i < images; ++i) {
    text(6);
    MropeGrid g{std::uniform_int_distribution<std::int64_t>(1, 2)(rng),
                p.merge * std::uniform_int_distribution<std::int64_t>(1, 5)(rng),
                p.merge * std::uniform_int_distribution<std::int64_t>(1, 5)(rng)};
    p.grids.push_back(g);
    p.ids.push_back(kStart);
    p.ids.insert(p.ids.end(), static_cast<std::size_t>(mrope_soft_tokens(g, p.merge)), kPad);
    p.ids.push_back(kEnd);
  }
  text(5);
  return p;
}

// One oracle run for every prompt (a Python start per case would dominate the test's time).
nlohmann::json oracle(const std::vector<Prompt>& prompts) {
  const auto dir = std::filesystem::path(OGAI_BINARY_DIR) / "test_mrope";
  std::filesystem::create_directories(dir);
  const auto in = dir / "cases.json", out = dir / "cases.out.json";
  nlohmann::json cases = nlohmann::json::array();
  for (const Prompt& p : prompts) {
    nlohmann::json grids = nlohmann::json::array();
    for (const auto& g : p.grids) grids.push_back({g.t, g.h, g.w});
    cases.push_back({{"ids", p.ids}, {"vision_start", kStart}, {"image_pad", kPad}, {"grids", grids},
                     {"merge", p.merge}});
  }
  std::ofstream(in) << cases.dump();
  std::filesystem::remove(out);
  const std::string cmd = "/usr/bin/python3 " + std::string(OGAI_SOURCE_DIR) + "/tests/generate/mrope_oracle.py " +
                          in.string() + " " + out.string();
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return nlohmann::json::parse(std::ifstream(out));
}

MropePositions ours(const Prompt& p) {
  const auto spans = mrope_spans(p.ids, kPad, p.grids, p.merge);
  return mrope_positions(static_cast<std::int64_t>(p.ids.size()), spans, p.merge);
}

TEST(MropePositions, EqualsNumpyOracle) {
  std::mt19937 rng(35);
  std::vector<Prompt> prompts;
  for (int c = 0; c < 200; ++c) prompts.push_back(random_prompt(rng, c % 5));
  const auto wanted = oracle(prompts);
  ASSERT_EQ(wanted.size(), prompts.size());
  for (std::size_t c = 0; c < prompts.size(); ++c) {
    const Prompt& p = prompts[c];
    const auto& want = wanted[c];
    const MropePositions got = ours(p);
    ASSERT_EQ(got.length, static_cast<std::int64_t>(p.ids.size()));
    for (int axis = 0; axis < 3; ++axis)
      for (std::int64_t i = 0; i < got.length; ++i)
        ASSERT_EQ(got.at(axis, i), want["positions"][axis][i].get<std::int64_t>())
            << "case " << c << " axis " << axis << " index " << i;
    EXPECT_EQ(got.delta, want["delta"].get<std::int64_t>()) << "case " << c;
  }
}

TEST(MropePositions, HandCheckedImageAndDecodeContinuation) {
  // "a b <start> [2x2 merged grid] <end> c": text 0..2, image at 3 + (h, w), then 5, 6.
  Prompt p{{20, 21, kStart, kPad, kPad, kPad, kPad, kEnd, 22}, {{1, 4, 4}}, 2};
  const MropePositions m = ours(p);
  const std::vector<std::int64_t> t{0, 1, 2, 3, 3, 3, 3, 5, 6}, h{0, 1, 2, 3, 3, 4, 4, 5, 6},
      w{0, 1, 2, 3, 4, 3, 4, 5, 6};
  for (std::int64_t i = 0; i < 9; ++i) {
    EXPECT_EQ(m.at(0, i), t[i]) << i;
    EXPECT_EQ(m.at(1, i), h[i]) << i;
    EXPECT_EQ(m.at(2, i), w[i]) << i;
  }
  EXPECT_EQ(m.delta, -2);
  EXPECT_EQ(m.at(1, 9), 7);  // the first generated token continues from the last position + 1
  EXPECT_EQ(m.at(2, 12), 10);
}

TEST(MropePositions, TextOnlyIsPlainPositions) {
  const MropePositions m = mrope_positions(5, {}, 2);
  for (int axis = 0; axis < 3; ++axis)
    for (std::int64_t i = 0; i < 8; ++i) EXPECT_EQ(m.at(axis, i), i);
  EXPECT_EQ(m.delta, 0);
}

TEST(MropePositions, RefusesBadGridsAndSpans) {
  auto code = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(error_code_name(e.code())) + ": " + e.what();
    }
    return std::string("no error");
  };
  EXPECT_NE(code([] { mrope_soft_tokens({1, 3, 4}, 2); }).find("[1, 3, 4]"), std::string::npos);
  EXPECT_NE(code([] { mrope_soft_tokens({0, 2, 2}, 2); }).find("image_grid_thw"), std::string::npos);
  EXPECT_NE(code([] { mrope_positions(4, {}, 0); }).find("spatial_merge_size"), std::string::npos);
  const MropeSpan overlap[] = {{0, {1, 2, 2}}, {0, {1, 2, 2}}};
  EXPECT_NE(code([&] { mrope_positions(4, overlap, 1); }).find("images[1]"), std::string::npos);
  const MropeSpan past_end[] = {{3, {1, 2, 2}}};
  EXPECT_NE(code([&] { mrope_positions(4, past_end, 1); }).find("do not fit"), std::string::npos);
  const std::vector<TokenId> short_run{1, kPad, kPad, 2};
  const MropeGrid grid[] = {{1, 4, 4}};
  EXPECT_NE(code([&] { mrope_spans(short_run, kPad, grid, 2); }).find("needs 4 soft tokens"), std::string::npos);
  EXPECT_NE(code([&] { mrope_spans(short_run, kPad, grid, 1); }).find("needs 16"), std::string::npos);
  const std::vector<TokenId> no_image{1, 2, 3};
  EXPECT_NE(code([&] { mrope_spans(no_image, kPad, grid, 2); }).find("images[0]"), std::string::npos);
}

}  // namespace
}  // namespace ogai::generate
