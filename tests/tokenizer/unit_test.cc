// Unit tests of the tokenizer's building blocks and error handling. Exactness against Hugging
// Face is checked by differential.cjs; these pin down the pieces and the failure messages.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "ogai/error.h"
#include "tokenizer/regex.h"
#include "tokenizer/scanner.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

const std::string kShared = OGAI_SHARED_DIR;

std::string error_of(const std::string& json) {
  try {
    Tokenizer::from_json(json, "test.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// A WordLevel tokenizer over a few words, with the given extra top-level members.
std::string word_level(const std::string& extra = "") {
  return R"({"model": {"type": "WordLevel", "vocab": {"<unk>": 0, "hello": 1, "world": 2, "!": 3}, "unk_token": "<unk>"},
             "pre_tokenizer": {"type": "Whitespace"}, "added_tokens": [])" +
         extra + "}";
}

TEST(Utf8, LossyReplacesMaximalSubparts) {
  EXPECT_EQ(utf8_lossy("a\xE2\x82" "b"), "a\xEF\xBF\xBD" "b");         // one U+FFFD for a truncated sequence
  EXPECT_EQ(utf8_lossy("\xF0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");        // F0 80 is not a valid prefix
  EXPECT_EQ(utf8_lossy("\xE2\x82\xAC"), "\xE2\x82\xAC");                // the euro sign is kept
  EXPECT_EQ(find_invalid_utf8("ok\xC3"), std::optional<std::size_t>(2));
  EXPECT_TRUE(ends_with_incomplete_utf8("x\xE2\x82"));
  EXPECT_FALSE(ends_with_incomplete_utf8("x\xE2\x82\xAC"));
}

// The hand-written scanners must split exactly like the regex they replace.
TEST(Scanner, MatchesRegexOnRandomText) {
  const char* pieces[] = {"a", "Z", "é", "ß", "中", "1", "²", "٣", " ", "  ", "\t", "\n", "\r\n", "\u3000", "'", "'s",
                          "'LL", "'ſ", ".", "!?", "😀", "\u0301", "\u00a0", "_", "-", "x"};
  std::mt19937 rng(7);
  struct Case {
    Scanner scanner;
    std::string pattern;
  } cases[] = {{scan_gpt2, std::string(kGpt2Pattern)},
               {scan_cl100k, "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
               {scan_qwen2, "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}};
  for (const Case& c : cases) {
    ASSERT_EQ(find_scanner(c.pattern), c.scanner);
    Regex regex(c.pattern, "test");
    for (int n = 0; n < 3000; ++n) {
      std::string text;
      for (int k = rng() % 12; k >= 0; --k) text += pieces[rng() % std::size(pieces)];
      Matches scanned;
      c.scanner(text, scanned);
      ASSERT_EQ(scanned, regex.find_all(text)) << c.pattern << " on '" << text << "'";
    }
  }
}

TEST(Regex, OnigurumaClassesAreTranslated) {
  Regex word("\\w+", "test");
  EXPECT_EQ(word.find_all("k\u00bd \u2460"), (Matches{{0, 3}}));  // ½ is a word char outside a class, ① is not
  Regex not_word("[^\\w\\s]+", "test");
  EXPECT_EQ(not_word.find_all("k\u00bd"), (Matches{{1, 3}}));  // ...and not inside one
  EXPECT_THROW(Regex("(unclosed", "test"), Error);
}

TEST(Load, UnsupportedComponentsNameTheirJsonPath) {
  EXPECT_NE(error_of(word_level(R"(, "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Foo"}]})"))
                .find("unsupported normalizer 'Foo' at normalizer.normalizers[1]"),
            std::string::npos);
  EXPECT_NE(error_of(word_level(R"(, "decoder": {"type": "Nope"})")).find("unsupported decoder 'Nope' at decoder"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"model": {"type": "Magic", "vocab": {}}})").find("unsupported model 'Magic' at model"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"model": {"type": "WordLevel", "vocab": {"a": 0}},
                         "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Odd"}})")
                .find("unsupported split behavior 'Odd' at pre_tokenizer.behavior"),
            std::string::npos);
}

TEST(Load, MalformedJsonNamesThePosition) {
  std::string e = error_of("{\n  \"model\": {\"type\": \"BPE\",\n    \"vocab\": {\"a\": 0,}\n  }\n}");
  EXPECT_NE(e.find("test.json: malformed JSON at line 3, column 22"), std::string::npos) << e;
  EXPECT_NE(error_of(R"({"model": {"type": "WordLevel", "vocab": {"a": "zero"}}})").find("model.vocab"), std::string::npos);
  EXPECT_NE(error_of(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}})").find("not in model.vocab"),
            std::string::npos);
}

TEST(Load, PackageDirectoryAndMissingFile) {
  Tokenizer dir = Tokenizer::load(kShared + "/models/stories260k");
  EXPECT_EQ(dir.encode("Once upon a time"), (std::vector<std::int32_t>{1, 403, 407, 261, 378}));
  EXPECT_EQ(dir.vocab_size(), 512u);
  EXPECT_TRUE(dir.is_special(1));
  EXPECT_FALSE(dir.is_special(403));
  EXPECT_EQ(dir.token_to_id("<s>"), std::optional<std::int32_t>(1));
  EXPECT_EQ(dir.id_to_token(2), "</s>");
  EXPECT_FALSE(dir.has_id(100000));
  try {
    Tokenizer::load("/nonexistent/dir");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
}

// Issue 12 finding 10: tables are sized by the number of tokens, not by the largest id (id 10^9
// took 15.7 GB and 32 s; id 2^31-1 overflowed an int and failed with "cannot create std::vector").
TEST(Load, SparseIdsCostTheirCountNotTheirValue) {
  for (std::int64_t big : {std::int64_t{1000000000}, std::int64_t{2147483647}}) {
    std::string id = std::to_string(big), below = std::to_string(big - 1);
    Tokenizer tok = Tokenizer::from_json(R"({"model": {"type": "WordLevel", "vocab": {"<unk>": 0, "hello": )" + id +
                                         R"(, "world": 2}, "unk_token": "<unk>"}, "pre_tokenizer": {"type": "Whitespace"},
        "added_tokens": [{"id": )" + below + R"(, "content": "<tool>", "special": true, "normalized": false}]})");
    EXPECT_EQ(tok.encode("hello world <tool> x"),
              (std::vector<std::int32_t>{static_cast<std::int32_t>(big), 2, static_cast<std::int32_t>(big - 1), 0}));
    EXPECT_EQ(tok.id_to_token(static_cast<std::int32_t>(big)), "hello");
    EXPECT_EQ(tok.id_to_token(static_cast<std::int32_t>(big - 1)), "<tool>");
    EXPECT_TRUE(tok.is_special(static_cast<std::int32_t>(big - 1)));
    EXPECT_FALSE(tok.has_id(1));
    EXPECT_FALSE(tok.has_id(static_cast<std::int32_t>(big - 2)));
    EXPECT_EQ(tok.vocab_size(), static_cast<std::size_t>(big) + 1);
    std::vector<std::int32_t> ids = {static_cast<std::int32_t>(big), 2, static_cast<std::int32_t>(big - 1), 5};
    EXPECT_EQ(tok.decode(ids), "hello world <tool>");
    EXPECT_EQ(tok.decode(ids, true), "hello world");
  }
}

// Issue 12 finding 13: an added token that is not in the model vocabulary keeps the id its "id"
// field declares, also beyond the vocabulary (transformers.js gives 700 and 600 here; the Rust
// library renumbers them 512 and 513 with a warning). A content in the vocabulary keeps the
// vocabulary's id, as both libraries do.
TEST(Load, AddedTokensKeepTheirDeclaredIds) {
  Tokenizer tok = Tokenizer::from_json(R"({"model": {"type": "WordLevel", "vocab": {"<unk>": 0, "hello": 1, "world": 2, "!": 3},
      "unk_token": "<unk>"}, "pre_tokenizer": {"type": "Whitespace"}, "added_tokens": [
      {"id": 700, "content": "<tool>", "special": true, "normalized": false},
      {"id": 600, "content": "<x>", "special": false, "normalized": false},
      {"id": 3, "content": "!", "special": false}, {"id": 800, "content": "world", "normalized": false}]})");
  EXPECT_EQ(tok.encode("hello <tool> world <x> !"), (std::vector<std::int32_t>{1, 700, 2, 600, 3}));
  EXPECT_FALSE(tok.has_id(800));
  EXPECT_EQ(tok.token_to_id("<tool>"), std::optional<std::int32_t>(700));
  EXPECT_EQ(tok.id_to_token(600), "<x>");
  EXPECT_FALSE(tok.has_id(4));
  EXPECT_EQ(tok.vocab_size(), 701u);
}

// A Unigram tokenizer (no pre-tokenizer) over `pieces`, each scored -1 per character.
Tokenizer unigram(const std::vector<std::string>& pieces) {
  std::string vocab = R"([["<unk>", -100.0])";
  for (const std::string& p : pieces) vocab += R"(, [")" + p + R"(", )" + std::to_string(-1.0 * static_cast<double>(p.size())) + "]";
  return Tokenizer::from_json(R"({"model": {"type": "Unigram", "unk_id": 0, "vocab": )" + vocab + "]}}");
}

// Issue 12 finding 11: segmentation looked up every substring up to the longest piece's length
// at every position (O(text x L^2): one 10,000-character piece made a 10,000-character text take
// 29 s). A trie over the pieces stops where no piece continues: here two steps per position.
TEST(Encode, UnigramCostDoesNotGrowWithTheLongestPiece) {
  Tokenizer tok = unigram({"a", "b", std::string(10000, 'a') + "c"});
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "ab";
  auto start = std::chrono::steady_clock::now();
  std::vector<std::int32_t> ids = tok.encode(text);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(ids.size(), 20000u);
  EXPECT_EQ(ids[0], 1);
  EXPECT_EQ(ids[1], 2);
  EXPECT_LT(seconds, 2.0) << "well under 0.1 s with the trie; hours without";
  // The long piece still wins where it matches; multi-byte characters and pieces.
  EXPECT_EQ(tok.encode(std::string(10000, 'a') + "c"), (std::vector<std::int32_t>{3}));
  Tokenizer accents = unigram({"\u00e9", "e\u0301", "\u00e9t\u00e9"});
  EXPECT_EQ(accents.encode("\u00e9t\u00e9\u00e9"), (std::vector<std::int32_t>{3, 1}));
  EXPECT_EQ(accents.encode("x\u00e9e\u0301"), (std::vector<std::int32_t>{0, 1, 2}));
}

TEST(Encode, InvalidUtf8IsAnErrorWithTheOffset) {
  Tokenizer tok = Tokenizer::from_json(word_level());
  try {
    tok.encode("hello \xFF world");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("byte 6"), std::string::npos);
  }
  EXPECT_EQ(tok.encode("hello world !"), (std::vector<std::int32_t>{1, 2, 3}));
  EXPECT_EQ(tok.encode("hello there"), (std::vector<std::int32_t>{1, 0}));
}

// Strip with stop > 0 (not in the differential test: the Rust library panics on short tokens).
TEST(Decode, StripRemovesUpToStartAndStopCharacters) {
  Tokenizer tok = Tokenizer::from_json(word_level(
      R"(, "decoder": {"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "Strip", "content": "!", "start": 1, "stop": 2}]})"));
  std::vector<std::int32_t> ids = {3, 3, 1, 3, 3, 3};
  EXPECT_EQ(tok.decode(ids), "!hello!");
  EXPECT_EQ(tok.decode(std::vector<std::int32_t>{3}), "");
}

TEST(Encode, SharedAcrossThreadsGivesTheSameIds) {
  Tokenizer tok = Tokenizer::load(kShared + "/tokenizers/gpt2");
  std::string text;
  for (int i = 0; i < 200; ++i) text += "Thread safety test " + std::to_string(i) + " with ünïcödé and emoji 😀. ";
  std::vector<std::int32_t> expected = tok.encode(text);
  std::vector<std::vector<std::int32_t>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 20; ++k) got[t] = tok.encode(text);
    });
  for (auto& th : threads) th.join();
  for (const auto& g : got) EXPECT_EQ(g, expected);
  std::vector<std::string> batch = {text, "short", ""};
  auto b = tok.encode_batch(batch);
  EXPECT_EQ(b[0], expected);
  EXPECT_EQ(b[1], tok.encode("short"));
  EXPECT_TRUE(b[2].empty());
}

}  // namespace
}  // namespace ogai::tokenizer
