// token_bytes(): a token's exact bytes in the middle of a text, for the decoder families of the
// shared tokenizers: SentencePiece with byte fallback (stories260k), GPT-2 byte-level, WordPiece.
#include <gtest/gtest.h>

#include "tokenizer/token_bytes.h"

namespace ogai::tokenizer {
namespace {

const std::string kShared = OGAI_SHARED_DIR;

TEST(TokenBytes, SentencePieceWithByteFallback) {
  Tokenizer tok = Tokenizer::load(kShared + "/models/stories260k");
  EXPECT_EQ(token_bytes(tok, 383), " there");  // "▁there": its space is kept mid-text
  EXPECT_EQ(tok.decode(std::vector<std::int32_t>{383}), "there");  // where a whole decode strips it
  EXPECT_EQ(token_bytes(tok, 13), "\n");       // <0x0A>
  EXPECT_EQ(token_bytes(tok, 229), "\xE2");    // <0xE2>: the byte, not U+FFFD
  EXPECT_EQ(token_bytes(tok, 1), "<s>");       // a special token: its content
  EXPECT_EQ(token_bytes(tok, 99999), "");
}

TEST(TokenBytes, ByteLevelGivesRawBytes) {
  Tokenizer tok = Tokenizer::load(kShared + "/tokenizers/gpt2");
  EXPECT_EQ(token_bytes(tok, 612), " there");        // "Ġthere"
  EXPECT_EQ(token_bytes(tok, 447), "\xE2\x80");      // "âĢ": two bytes of a three-byte character
  EXPECT_EQ(tok.decode(std::vector<std::int32_t>{447}), "\xEF\xBF\xBD");  // a decode shows U+FFFD
  // The pieces of a text concatenate to it.
  auto ids = tok.encode("Hello \xE2\x80\x94 world", false);
  std::string joined;
  for (auto id : ids) joined += token_bytes(tok, id);
  EXPECT_EQ(joined, "Hello \xE2\x80\x94 world");
}

TEST(TokenBytes, WordPieceContinuationAndWord) {
  Tokenizer tok = Tokenizer::load(kShared + "/tokenizers/bert-base-uncased");
  EXPECT_EQ(token_bytes(tok, 2075), "ing");     // "##ing" continues a word
  EXPECT_EQ(token_bytes(tok, 2045), " there");  // a word after another
}

}  // namespace
}  // namespace ogai::tokenizer
