// Images and audio through the native engine (docs/multimodal.md), on packages written at test
// time by tools/fixtures/multimodal_package.py: a vision MatMul over patches, an audio MatMul over
// log-mel frames, an embedding graph that scatters the features at the <|image|> / <|audio|>
// ids, and a one-layer KV decoder on inputs_embeds. Every assertion compares real runs.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>

#include <unistd.h>

#include "base/file.h"
#include "media/audio/wav_encode.h"
#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;

fs::path fixture(const char* name) { return fs::path(OGAI_BINARY_DIR) / "multimodal" / name; }

std::shared_ptr<const Model> vlm() {
  static auto model = Model::load(fixture("tiny-vlm"));
  return model;
}

// A 24-bit BMP of `w` x `h` whose pixels come from `seed` (a different seed, a different image).
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
      for (int c = 0; c < 3; ++c)
        b[54 + y * stride + x * 3 + c] = static_cast<char>((x * 37 + y * 91 + c * 53 + seed * 101) * (seed + 3) % 256);
  return b;
}

std::string wav(double seconds, double hz) {
  const int rate = 16000;
  std::vector<float> s(static_cast<std::size_t>(seconds * rate));
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = 0.5f * std::sin(2 * std::numbers::pi * hz * i / rate);
  auto bytes = media::audio::encode_wav(s, 1, rate, media::audio::PcmEncoding::kS16, "test");
  return {bytes.begin(), bytes.end()};
}

MediaInput image(int seed) { return {MediaInput::Kind::kImage, bmp(8, 8, seed), "image/bmp", "image " + std::to_string(seed)}; }
MediaInput audio(double seconds, double hz) { return {MediaInput::Kind::kAudio, wav(seconds, hz), "audio/wav", "clip"}; }

GenerationOptions with(std::vector<MediaInput> media, int n = 12) {
  GenerationOptions o;
  o.max_new_tokens = n;
  o.media = std::move(media);
  return o;
}

const char* kPrompt = "<bos> describe <|image|> the image";

TEST(MultimodalTest, DifferentImagesGiveDifferentTokensSameImageTheSame) {
  auto m = vlm();
  auto a = m->generate(kPrompt, with({image(1)}));
  auto b = m->generate(kPrompt, with({image(2)}));
  auto a2 = m->generate(kPrompt, with({image(1)}));
  EXPECT_EQ(a.ids, a2.ids);
  EXPECT_NE(a.ids, b.ids) << "the image does not reach the decoder";
  // The placeholder becomes 4 soft tokens (8x8 pixels in 4x4 patches) between the begin and end markers.
  const auto text = m->tokenize(kPrompt);
  EXPECT_EQ(a.prompt_ids.size(), text.size() - 1 + 4 + 2);
  auto soft = std::count(a.prompt_ids.begin(), a.prompt_ids.end(), *m->tokenize("<|image|>", false).begin());
  EXPECT_EQ(soft, 4);
}

TEST(MultimodalTest, PrefillChunksCuttingThroughAnImageEqualOneShot) {
  auto m = vlm();
  const std::string prompt = "<bos> compare <|image|> and <|image|> one";
  auto whole = m->generate(prompt, with({image(1), image(2)}));
  for (int chunk : {1, 3, 5}) {
    GenerationOptions o = with({image(1), image(2)});
    o.prefill_chunk = chunk;
    auto r = m->generate(prompt, o);
    EXPECT_EQ(r.ids, whole.ids) << "chunk " << chunk;
  }
}

TEST(MultimodalTest, TextOnlyRunsThroughTheEmbeddingAndBatchesLikeSolo) {
  auto m = vlm();
  GenerationOptions o;
  o.max_new_tokens = 10;
  auto solo = m->generate("<bos> hello what is this", o);
  EXPECT_EQ(solo.ids.size(), 10u);
  std::vector<std::string> prompts = {"<bos> hello what is this", "<bos> a cat", "<bos> compare two pictures and one"};
  auto batch = m->generate_batch(prompts, o);
  for (std::size_t i = 0; i < prompts.size(); ++i) EXPECT_EQ(batch[i].ids, m->generate(prompts[i], o).ids) << i;
}

TEST(MultimodalTest, ABatchOfDifferentImagesEqualsEachAlone) {
  auto m = vlm();
  Engine engine(m, {.max_sequences = 4, .prefix_cache_bytes = 0});
  std::vector<std::shared_ptr<GenerationHandle>> handles;
  for (int seed = 1; seed <= 4; ++seed) handles.push_back(engine.submit(kPrompt, with({image(seed)}, 10 + seed)));
  for (int seed = 1; seed <= 4; ++seed) {
    auto r = handles[static_cast<std::size_t>(seed - 1)]->wait();
    EXPECT_EQ(r.ids, m->generate(kPrompt, with({image(seed)}, 10 + seed)).ids) << seed;
  }
  EXPECT_GE(engine.stats().max_batch, 2) << "the requests were not decoded together";
}

TEST(MultimodalTest, PrefixCacheNeverCrossesImagesAndReusesTheSameImage) {
  auto m = vlm();
  Engine engine(m, {.max_sequences = 1});
  const std::string prompt = "<bos> hello what is this <|image|> describe the image and the sound";
  auto first = engine.submit(prompt, with({image(1)}))->wait();
  auto other = engine.submit(prompt, with({image(2)}))->wait();
  EXPECT_EQ(other.ids, m->generate(prompt, with({image(2)})).ids);
  // Shared: the text and the image's begin marker, up to the first soft token.
  const auto before_image = m->tokenize("<bos> hello what is this <|image>").size();
  EXPECT_LE(engine.stats().prefix_reused_tokens, before_image) << "image 1's KV was reused for image 2";
  const auto reused = engine.stats().prefix_reused_tokens;
  auto again = engine.submit(prompt, with({image(1)}))->wait();
  EXPECT_EQ(again.ids, first.ids);
  EXPECT_GT(engine.stats().prefix_reused_tokens - reused, before_image + 4) << "the same image's KV was not reused";
}

TEST(MultimodalTest, SeveralImagesAndClipsInOrderInterleavedWithText) {
  auto m = vlm();
  const std::string prompt = "<bos> compare <|image|> and <|audio|> and <|image|>";
  auto r = m->generate(prompt, with({image(1), audio(0.25, 440), image(2)}));
  auto swapped = m->generate(prompt, with({image(2), audio(0.25, 440), image(1)}));
  EXPECT_NE(r.ids, swapped.ids) << "image order is not kept";
  auto longer = m->generate(prompt, with({image(1), audio(0.5, 440), image(2)}));
  // Soft tokens follow the clip's frames: a longer clip, a longer prompt.
  EXPECT_GT(longer.prompt_ids.size(), r.prompt_ids.size());
  auto other_sound = m->generate(prompt, with({image(1), audio(0.25, 1000), image(2)}));
  EXPECT_NE(r.ids, other_sound.ids) << "the audio does not reach the decoder";
}

TEST(MultimodalTest, PlaceholderCountMismatchIsAnError) {
  auto m = vlm();
  try {
    m->generate(kPrompt, with({image(1), image(2)}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1 placeholder '<|image|>' but 2 images"), std::string::npos) << e.what();
  }
  try {
    m->generate(kPrompt, with({}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("0 images"), std::string::npos) << e.what();
  }
}

TEST(MultimodalTest, ChatPartsRenderAsThePlaceholders) {
  auto m = vlm();
  ChatMessage user;
  user.role = "user";
  user.parts = {{ContentPart::Kind::kText, "describe", {}}, {ContentPart::Kind::kImage, "", image(3)},
                {ContentPart::Kind::kText, " the image", {}}};
  std::vector<ChatMessage> messages{user};
  ChatPrompt p = m->prepare_chat(messages, {});
  EXPECT_NE(p.text.find("describe<|image|> the image"), std::string::npos) << p.text;
  ASSERT_EQ(p.media.size(), 1u);
  GenerationOptions o = with(p.media);
  o.add_special_tokens = false;
  auto r = m->generate(p.text, o);
  o.media = {image(4)};
  EXPECT_NE(r.ids, m->generate(p.text, o).ids);
}

TEST(MultimodalTest, MediaOnAPackageWithoutEncodersIsRefused) {
  auto text_only = Model::load(fs::path(OGAI_SOURCE_DIR) / "tests" / "data" / "packages" / "tiny-e2b");
  try {
    text_only->generate("Once", with({image(1)}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("media[0]"), std::string::npos) << e.what();
  }
}

TEST(MultimodalTest, GraphsThatIgnoreTheirInputsAreRefusedNamingTheOutput) {
  auto dummy = Model::load(fixture("tiny-vlm-dummy-embedding"));
  try {
    dummy->generate("<bos> hello", with({}, 2));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'inputs_embeds'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[1, 2, 16]"), std::string::npos) << e.what();
  }
  auto vision = Model::load(fixture("tiny-vlm-dummy-vision"));
  try {
    vision->generate(kPrompt, with({image(1)}, 2));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'image_features'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[rows, 16]"), std::string::npos) << e.what();
  }
}

// A copy of tiny-vlm whose document has `from` replaced by `to`.
fs::path edited_copy(const std::string& name, const std::string& from, const std::string& to) {
  const fs::path dir = fs::temp_directory_path() / ("ogai_multimodal_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(fixture("tiny-vlm"), dir, fs::copy_options::recursive);
  const fs::path doc = dir / "inference_metadata.yaml";
  std::string text = read_file(doc);
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  write_file(doc, text);
  return dir;
}

TEST(MultimodalTest, AnEncoderInputNoProgramMakesIsRefusedByDocumentPath) {
  const fs::path dir = edited_copy("unfed", R"("pixel_values": "image.pixel_values")", R"("pixel_values": "request.input_ids")");
  try {
    Model::load(dir);
    ADD_FAILURE() << "loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pipeline.workflow.steps[2].inputs.pixel_values"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("preprocessing"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(MultimodalTest, CorruptImageIsAClearError) {
  auto m = vlm();
  MediaInput bad{MediaInput::Kind::kImage, "BM not really an image", "image/bmp", "upload"};
  try {
    m->generate(kPrompt, with({bad}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("media[0]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ogai
