// Qwen2.5-VL's 3-D positions in the engine (docs/multimodal.md, "Qwen-VL positions"), on the
// qwen2_5_vl stand-in tools/genai/multimodal.py writes (CTest fixture importer_multimodal_folders):
// its decoder's logits depend on the positions only, so images of different sizes give prompts
// with different rope deltas, and a batch whose rows carry different deltas must equal each row
// alone; prefill chunks cutting through an image equal one shot; the prefix cache's reuse of the
// same image gives the same ids. Every assertion compares real runs.
#include <gtest/gtest.h>

#include <filesystem>

#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<const Model> qwen() {
  static auto model = Model::load(fs::path(OGAI_BINARY_DIR) / "importer_folders" / "multimodal" / "mm-qwen2_5_vl");
  return model;
}

// A 24-bit BMP of `w` x `h` (multiples of 28: smart resize keeps them) from `seed`.
std::string bmp(int w, int h, int seed) {
  const int stride = (w * 3 + 3) / 4 * 4;
  const std::uint32_t size = 54 + static_cast<std::uint32_t>(stride * h);
  std::string b(size, '\0');
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  b[0] = 'B';
  b[1] = 'M';
  put32(2, size);
  put32(10, 54);
  put32(14, 40);
  put32(18, static_cast<std::uint32_t>(w));
  put32(22, static_cast<std::uint32_t>(h));
  b[26] = 1;
  b[28] = 24;
  put32(34, static_cast<std::uint32_t>(stride * h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) b[54 + y * stride + x * 3 + c] = static_cast<char>((x * 37 + y * 91 + c * 53 + seed * 101) % 256);
  return b;
}

GenerationOptions with_image(int w, int h, int n = 8) {
  GenerationOptions o;
  o.max_new_tokens = n;
  o.ignore_eos = true;
  o.media = {{MediaInput::Kind::kImage, bmp(w, h, w + h), "image/bmp", "image"}};
  return o;
}

struct Case {
  const char* prompt;
  int w, h;
};
const Case kCases[] = {{"w10 <|image_pad|> w11", 84, 56},
                       {"w10 w11 w12 <|image_pad|>", 56, 112},
                       {"<|image_pad|> w20 w21 w22 w23", 112, 112},
                       {"w30 <|image_pad|> w31 w32", 56, 56}};

TEST(QwenVlEngine, ABatchOfRowsWithDifferentRopeDeltasEqualsEachAlone) {
  auto m = qwen();
  Engine engine(m, {.max_sequences = 4, .prefix_cache_bytes = 0});
  std::vector<std::shared_ptr<GenerationHandle>> handles;
  for (const Case& c : kCases) handles.push_back(engine.submit(c.prompt, with_image(c.w, c.h)));
  std::vector<std::vector<TokenId>> solo;
  for (std::size_t i = 0; i < std::size(kCases); ++i) {
    auto r = handles[i]->wait();
    solo.push_back(m->generate(kCases[i].prompt, with_image(kCases[i].w, kCases[i].h)).ids);
    EXPECT_EQ(r.ids, solo.back()) << i;
  }
  EXPECT_GE(engine.stats().max_batch, 2) << "the requests were not decoded together";
  EXPECT_NE(solo[0], solo[1]) << "the stand-in does not tell these prompts apart";
}

TEST(QwenVlEngine, PrefillChunksCuttingThroughAnImageEqualOneShot) {
  auto m = qwen();
  const auto whole = m->generate(kCases[1].prompt, with_image(kCases[1].w, kCases[1].h));
  GenerationOptions chunked = with_image(kCases[1].w, kCases[1].h);
  chunked.prefill_chunk = 3;
  EXPECT_EQ(m->generate(kCases[1].prompt, chunked).ids, whole.ids);
}

TEST(QwenVlEngine, ThePrefixCacheReusesTheSameImage) {
  auto m = qwen();
  Engine engine(m, {.max_sequences = 1});
  const Case& c = kCases[2];
  auto first = engine.submit(c.prompt, with_image(c.w, c.h))->wait();
  auto again = engine.submit(c.prompt, with_image(c.w, c.h))->wait();
  EXPECT_EQ(again.ids, first.ids);
  EXPECT_GT(engine.stats().prefix_reused_tokens, 0);
  EXPECT_EQ(first.ids, m->generate(c.prompt, with_image(c.w, c.h)).ids);
}

}  // namespace
}  // namespace ogai
