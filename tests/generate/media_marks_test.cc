// Media-aware prefixes (media_marks.h) and prompt expansion by family (prompt_expansion.h).
#include <gtest/gtest.h>

#include "base/error.h"
#include "generate/media_marks.h"
#include "generate/prompt_expansion.h"
#include "tokenizer/tokenizer.h"

namespace ogai::generate {
namespace {

MediaMark mark(std::size_t begin, std::size_t length, std::vector<std::uint8_t> bytes) {
  auto content = std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes));
  return {begin, length, media_digest(*content), content, 0};
}

TEST(MediaMarksTest, APrefixStopsAtTheFirstSpanNotShared) {
  const std::vector<TokenId> tokens = {1, 2, 9, 9, 9, 3, 4};
  EXPECT_EQ(common_media_prefix(tokens, {mark(2, 3, {1})}, tokens, {mark(2, 3, {1})}), 7u);
  EXPECT_EQ(common_media_prefix(tokens, {mark(2, 3, {1})}, tokens, {mark(2, 3, {2})}), 2u);
  EXPECT_EQ(common_media_prefix(tokens, {mark(2, 3, {1})}, tokens, {}), 2u);
  EXPECT_EQ(common_media_prefix(tokens, {}, tokens, {mark(2, 3, {1})}), 2u);
  // Equal digests are not enough: the bytes decide (a forced collision is not shared).
  MediaMark forged = mark(2, 3, {2});
  forged.digest = media_digest(std::vector<std::uint8_t>{1});
  EXPECT_EQ(common_media_prefix(tokens, {mark(2, 3, {1})}, tokens, {forged}), 2u);
  // Spans past the token mismatch do not matter.
  const std::vector<TokenId> other = {1, 5, 9, 9, 9, 3, 4};
  EXPECT_EQ(common_media_prefix(tokens, {mark(2, 3, {1})}, other, {mark(2, 3, {2})}), 1u);
}

TEST(MediaMarksTest, KeepAndAddMarks) {
  MediaMarks held = {mark(2, 3, {1}), mark(8, 2, {2})};
  keep_marks(held, 8);
  ASSERT_EQ(held.size(), 1u);
  add_marks(held, {mark(2, 3, {1}), mark(8, 2, {3}), mark(12, 1, {4})}, 5, 10);
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[1].begin, 8u);
}

tokenizer::Tokenizer qwen_like() {
  return tokenizer::Tokenizer::from_json(R"({"version":"1.0","added_tokens":[
    {"id":5,"content":"<|vision_start|>","special":true,"single_word":false,"lstrip":false,"rstrip":false,"normalized":false},
    {"id":6,"content":"<|image_pad|>","special":true,"single_word":false,"lstrip":false,"rstrip":false,"normalized":false},
    {"id":7,"content":"<|vision_end|>","special":true,"single_word":false,"lstrip":false,"rstrip":false,"normalized":false}],
    "normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,"decoder":null,
    "model":{"type":"WordLevel","vocab":{"<unk>":0,"a":1,"b":2,"<|vision_start|>":5,"<|image_pad|>":6,"<|vision_end|>":7},
    "unk_token":"<unk>"}})");
}

EncodedMedia item(std::int64_t rows, std::uint8_t fill) {
  EncodedMedia m;
  m.rows = rows;
  m.width = 1;
  m.row_bytes = 1;
  m.features = std::make_shared<const std::vector<std::uint8_t>>(static_cast<std::size_t>(rows), fill);
  m.digest = media_digest(*m.features);
  return m;
}

TEST(PromptExpansionTest, QwenPadsExpandInsideTheTemplatesMarkers) {
  auto tok = qwen_like();
  auto e = PromptExpander::for_vocabulary(&tok);
  EXPECT_EQ(e.family(), "qwen");
  PromptMedia media;
  media.items = {item(3, 1), item(2, 2)};
  auto ids = e.expand(tok.encode("a <|vision_start|><|image_pad|><|vision_end|> b <|image_pad|>"), media);
  // The template's markers are not doubled; a bare pad gets them.
  EXPECT_EQ(ids, (std::vector<TokenId>{1, 5, 6, 6, 6, 7, 2, 5, 6, 6, 7}));
  ASSERT_EQ(media.marks.size(), 2u);
  EXPECT_EQ(media.marks[0].begin, 2u);
  EXPECT_EQ(media.marks[1].begin, 8u);
  auto rows = media.rows(3, 9, 1);  // one row of the first image, one of the second
  EXPECT_EQ(rows.rows[0], 3);
  EXPECT_EQ(rows.bytes[0], (std::vector<std::uint8_t>{1, 1, 2}));
}

TEST(PromptExpansionTest, CountsMustMatch) {
  auto tok = qwen_like();
  auto e = PromptExpander::for_vocabulary(&tok);
  PromptMedia media;
  media.items = {item(1, 1)};
  try {
    e.expand(tok.encode("a b"), media);
    FAIL();
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("0 placeholders '<|image_pad|>' but 1 image given"), std::string::npos)
        << err.what();
  }
  PromptMedia clip;
  clip.items = {item(1, 1)};
  clip.items[0].audio = true;
  EXPECT_THROW(e.expand(tok.encode("a"), clip), Error);  // this vocabulary has no audio placeholder
}

}  // namespace
}  // namespace ogai::generate
