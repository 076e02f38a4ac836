// Phi-3-V's numbered image tags (image_tags.h) and their expansion (prompt_expansion.h,
// PromptExpander::numbered_images) on a synthetic word-level vocabulary: the text splits at each
// tag, each tag becomes -N and then -N once per feature row of image N, with marks where the rows
// sit; tags out of order, repeated, out of range or not matching the images are refused.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "base/error.h"
#include "generate/image_tags.h"
#include "generate/prompt_expansion.h"
#include "tokenizer/tokenizer.h"

namespace ogai::generate {
namespace {

tokenizer::Tokenizer words() {
  return tokenizer::Tokenizer::from_json(R"({"version":"1.0","added_tokens":[],
    "normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,"decoder":null,
    "model":{"type":"WordLevel","vocab":{"<unk>":0,"a":1,"b":2,"c":3,"<":4,"|":5,">":6,"image_1":7},
    "unk_token":"<unk>"}})");
}

EncodedMedia image(std::int64_t rows, std::uint8_t fill) {
  EncodedMedia m;
  m.rows = rows;
  m.width = 1;
  m.row_bytes = 1;
  m.features = std::make_shared<const std::vector<std::uint8_t>>(static_cast<std::size_t>(rows), fill);
  m.digest = media_digest(*m.features);
  return m;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ImageTagsTest, EachTagBecomesOneNegativeId) {
  const auto tok = words();
  EXPECT_EQ(encode_with_image_tags(tok, "a <|image_1|> b <|image_2|>c", false), (std::vector<TokenId>{1, -1, 2, -2, 3}));
  EXPECT_EQ(encode_with_image_tags(tok, "<|image_12|>", false), (std::vector<TokenId>{-12}));
  // Not tags: no digits, no closing bar, text stays text.
  EXPECT_EQ(encode_with_image_tags(tok, "a b", false), tok.encode("a b", false));
  EXPECT_EQ(encode_with_image_tags(tok, "<|image_|> a", false), tok.encode("<|image_|> a", false));
  EXPECT_EQ(encode_with_image_tags(tok, "<|image_1 a", false), tok.encode("<|image_1 a", false));
}

TEST(ImageTagsTest, OutOfRangeTagsAreRefusedNamingThem) {
  const auto tok = words();
  EXPECT_NE(error_of([&] { encode_with_image_tags(tok, "a <|image_0|>", false); }).find("'<|image_0|>'"), std::string::npos);
  const std::string huge = "<|image_" + std::string(5000, '9') + "|>";
  const std::string e = error_of([&] { encode_with_image_tags(tok, huge, false); });
  EXPECT_NE(e.find("out of range"), std::string::npos) << e;
  EXPECT_LT(e.size(), 400u);  // the tag is cut in the message
}

TEST(PhiExpansionTest, TagsRepeatOncePerFeatureRowWithMarks) {
  const PromptExpander e = PromptExpander::numbered_images();
  EXPECT_EQ(e.family(), "phi3v");
  PromptMedia media;
  media.items = {image(3, 1), image(2, 2)};
  const auto out = e.expand(std::vector<TokenId>{1, -1, 2, -2, 3}, media);
  EXPECT_EQ(out, (std::vector<TokenId>{1, -1, -1, -1, 2, -2, -2, 3}));
  ASSERT_EQ(media.marks.size(), 2u);
  EXPECT_EQ(media.marks[0].begin, 1u);
  EXPECT_EQ(media.marks[0].length, 3u);
  EXPECT_EQ(media.marks[1].begin, 5u);
  EXPECT_EQ(media.marks[1].length, 2u);
  EXPECT_EQ((*media.marks[1].content)[0], 2);
}

TEST(PhiExpansionTest, TagsMustNumberTheImagesInOrder) {
  const PromptExpander e = PromptExpander::numbered_images();
  const auto refused = [&](std::vector<TokenId> prompt, std::size_t images) {
    PromptMedia media;
    for (std::size_t i = 0; i < images; ++i) media.items.push_back(image(1, static_cast<std::uint8_t>(i)));
    return error_of([&] { e.expand(prompt, media); });
  };
  EXPECT_NE(refused({-2, -1}, 2).find("<|image_2|>"), std::string::npos);
  EXPECT_NE(refused({-1, -1}, 2).find("each once"), std::string::npos);
  EXPECT_NE(refused({-1, -2}, 1).find("2 image tags but 1 image given"), std::string::npos);
  EXPECT_NE(refused({1, 2}, 1).find("0 image tags but 1 image given"), std::string::npos);
  PromptMedia audio;
  audio.items = {image(1, 0)};
  audio.items[0].audio = true;
  EXPECT_NE(error_of([&] { e.expand(std::vector<TokenId>{-1}, audio); }).find("images only"), std::string::npos);
}

TEST(PhiExpansionTest, OtherFamiliesRefuseNegativeIds) {
  // A negative id reaches no vocabulary row: outside Phi-3-V it is an error, not a silent skip.
  const PromptExpander e = PromptExpander::for_vocabulary(nullptr);
  PromptMedia media;
  const std::string err = error_of([&] { e.expand(std::vector<TokenId>{1, -3, 2}, media); });
  EXPECT_NE(err.find("id -3 at position 1 is negative"), std::string::npos) << err;
}

}  // namespace
}  // namespace ogai::generate
