// Streaming decoder property tests: for random id sequences over real tokenizers, the
// concatenation of step() outputs and flush() equals decode(), every chunk is valid UTF-8, and
// text that is already complete comes out without waiting for the end.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "tokenizer/streaming_decoder.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

const std::string kShared = OGAI_SHARED_DIR;

void check_stream(const Tokenizer& tok, const std::vector<std::int32_t>& ids, bool skip) {
  StreamingDecoder stream(tok, skip);
  std::string all;
  for (std::int32_t id : ids) {
    std::string chunk = stream.step(id);
    ASSERT_FALSE(find_invalid_utf8(chunk).has_value());
    all += chunk;
  }
  all += stream.flush();
  ASSERT_EQ(all, tok.decode(ids, skip));
}

class Streaming : public ::testing::TestWithParam<std::string> {};

TEST_P(Streaming, ConcatenationEqualsDecode) {
  Tokenizer tok = Tokenizer::load(kShared + "/" + GetParam());
  std::mt19937 rng(42);
  std::int32_t n = static_cast<std::int32_t>(tok.vocab_size());
  for (int round = 0; round < 200; ++round) {
    std::vector<std::int32_t> ids;
    for (int k = rng() % 40; k >= 0; --k) {
      int pick = rng() % 10;
      ids.push_back(pick < 3 ? static_cast<std::int32_t>(rng() % 300) : static_cast<std::int32_t>(rng() % n));
    }
    check_stream(tok, ids, false);
    check_stream(tok, ids, true);
  }
  // Real text round trips, streamed one id at a time.
  std::string text = "  Hello wörld! 😀 👨‍👩‍👧 中文 𝔘 \t\n ꙮ done  ";
  check_stream(tok, tok.encode(text), false);
  check_stream(tok, tok.encode(text), true);
}

INSTANTIATE_TEST_SUITE_P(SharedTokenizers, Streaming,
                         ::testing::Values("tokenizers/gpt2", "tokenizers/llama2", "tokenizers/phi-3-mini",
                                           "tokenizers/bert-base-uncased", "tokenizers/t5-small",
                                           "models/stories260k"));

// A character split over byte-fallback tokens appears when its last byte arrives, not later.
TEST(StreamingDecoder, EmitsMultiByteCharacterWhenComplete) {
  Tokenizer tok = Tokenizer::load(kShared + "/models/stories260k");
  std::vector<std::int32_t> ids = tok.encode("a 😀 b", false);
  StreamingDecoder stream(tok);
  std::vector<std::string> chunks;
  for (std::int32_t id : ids) chunks.push_back(stream.step(id));
  std::string joined;
  for (const auto& c : chunks) joined += c;
  EXPECT_NE(joined.find("😀"), std::string::npos);  // out before flush()
  EXPECT_EQ(joined + stream.flush(), tok.decode(ids));
  EXPECT_EQ(chunks.front(), "a");  // Metaspace-style leading space stripped from the first token
}

}  // namespace
}  // namespace ogai::tokenizer

namespace ogai::tokenizer {
namespace {

// Long runs of byte-fallback tokens (valid characters, stray continuation bytes, truncated
// sequences), mixed with ordinary tokens: still exactly decode(), for both byte-fallback
// tokenizers. (The runs are decoded once when they end; this pins that the result is unchanged.)
TEST(StreamingDecoder, LongByteRunsEqualDecode) {
  for (const char* name : {"/models/stories260k", "/tokenizers/llama2"}) {
    Tokenizer tok = Tokenizer::load(kShared + name);
    std::vector<std::int32_t> bytes;
    for (int b = 0; b < 256; ++b) {
      char text[8];
      std::snprintf(text, sizeof text, "<0x%02X>", b);
      auto id = tok.token_to_id(text);
      ASSERT_TRUE(id.has_value()) << name << " " << text;
      bytes.push_back(*id);
    }
    std::vector<std::int32_t> plain = tok.encode("Hello there, wörld", false);
    std::mt19937 rng(7);
    for (int round = 0; round < 20; ++round) {
      std::vector<std::int32_t> ids;
      for (int run = 0; run < 6; ++run) {
        int length = static_cast<int>(rng() % 400);
        bool utf8 = rng() % 2 == 0;
        for (int k = 0; k < length; ++k) {
          if (utf8) {  // "é€" as bytes, sometimes cut short
            for (unsigned char c : std::string("\xC3\xA9\xE2\x82\xAC")) ids.push_back(bytes[c]);
            if (rng() % 5 == 0) ids.pop_back();
          } else {
            ids.push_back(bytes[rng() % 256]);
          }
        }
        ids.push_back(plain[rng() % plain.size()]);
      }
      check_stream(tok, ids, false);
    }
  }
}

}  // namespace
}  // namespace ogai::tokenizer
