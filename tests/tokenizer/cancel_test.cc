// tokenizer::CancelScope (tokenizer/cancel.h): an encode stops soon after its poll says the work
// is abandoned — inside one long BPE piece (the llama2.c tokenizer of stories260k has no pre-tokenizer: a
// text is one piece) and across many pieces (a word-level pipeline) — and an encode
// without a scope, or with a poll that stays false, gives the same ids as before.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

#include "ogai/error.h"
#include "tokenizer/cancel.h"
#include "tokenizer/tokenizer.h"

namespace ogai::tokenizer {
namespace {

const std::string kShared = OGAI_SHARED_DIR;

// Encodes `text` under a scope whose poll turns true after `polls_before_gone` polls; returns
// how many polls ran, or -1 when the encode finished.
int polls_until_cancelled(const Tokenizer& tok, const std::string& text, int polls_before_gone) {
  int polls = 0;
  CancelScope scope([&] { return ++polls > polls_before_gone; });
  try {
    tok.encode(text, false);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCancelled);
    EXPECT_NE(std::string(e.what()).find("cancelled"), std::string::npos) << e.what();
    return polls;
  }
  return -1;
}

TEST(CancelScope, StopsInsideOneLongPiece) {
  const Tokenizer tok = Tokenizer::load(kShared + "/models/stories260k/tokenizer.json");
  std::string text;  // no pre-tokenizer: one piece of 400,000 symbols to merge
  for (int i = 0; i < 80000; ++i) text += "Lily ";
  EXPECT_EQ(polls_until_cancelled(tok, text, 3), 4) << "the fourth poll says gone: the encode ends there";
  const auto ids = tok.encode(text, false);  // no scope: unchanged
  int polls = 0;
  {
    CancelScope scope([&] { return ++polls < 0; });  // never gone
    EXPECT_EQ(tok.encode(text, false), ids);
  }
  EXPECT_GT(polls, 100) << "a long encode polls as it goes";
}

TEST(CancelScope, StopsAcrossManyPieces) {
  const Tokenizer tok = Tokenizer::from_json(
      R"({"model": {"type": "WordLevel", "vocab": {"<unk>": 0, "hello": 1, "world": 2}, "unk_token": "<unk>"},
          "pre_tokenizer": {"type": "Whitespace"}, "added_tokens": []})");
  std::string text;
  for (int i = 0; i < 100000; ++i) text += i % 2 ? "world " : "hello ";
  EXPECT_EQ(polls_until_cancelled(tok, text, 0), 1);
  EXPECT_EQ(polls_until_cancelled(tok, text, 1 << 30), -1);
}

TEST(CancelScope, ScopesNestAndEndWithTheirLifetime) {
  const Tokenizer tok = Tokenizer::load(kShared + "/models/stories260k/tokenizer.json");
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "Lily ";
  std::atomic<bool> outer_gone = false;
  CancelScope outer([&] { return outer_gone.load(); });
  {
    CancelScope inner([] { return true; });
    EXPECT_THROW(tok.encode(text, false), Error);
  }
  EXPECT_NO_THROW(tok.encode(text, false));  // the inner scope ended; the outer's poll is false
  outer_gone = true;
  EXPECT_THROW(tok.encode(text, false), Error);
}

}  // namespace
}  // namespace ogai::tokenizer
