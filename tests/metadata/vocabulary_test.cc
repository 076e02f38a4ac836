// Rule VOCAB (issue 12 finding 12, issue 34 item 1.6): the tokenizer's ids, the decoder graph's
// logits and the metadata's vocab_size facts must agree, so that validate refuses what load would run wrongly
// (a tokenizer smaller than the logits: ids silently decode to nothing) or fail on at run time
// (added tokens beyond the logits). Each case breaks a copy of the tiny-e2b package (logits 515,
// tokenizer ids 0..514, both vocab_size facts 515).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "support.h"

namespace ogai::metadata {
namespace {

namespace fs = std::filesystem;
using testing::has;
using testing::replace_once;

class VocabularyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& entry : fs::directory_iterator(fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b"))
      fs::copy_file(entry.path(), dir_.path() / entry.path().filename());
    tokenizer_ = nlohmann::json::parse(read_file(dir_.path() / "tokenizer.json"));
    yaml_ = read_file(dir_.path() / "inference_metadata.yaml");
  }
  Diagnostics diagnostics() {
    dir_.write("tokenizer.json", tokenizer_.dump());
    dir_.write("inference_metadata.yaml", yaml_);
    return validate_package(dir_.path()).diagnostics;
  }
  void add_token(int id, const std::string& content) {
    tokenizer_["added_tokens"].push_back({{"id", id}, {"content", content}, {"special", true}, {"normalized", false}});
  }
  void drop_vocab_above(int keep) {
    nlohmann::json kept = nlohmann::json::object();
    for (auto& [token, id] : tokenizer_["model"]["vocab"].items())
      if (id.get<int>() < keep) kept[token] = id;
    tokenizer_["model"]["vocab"] = kept;
    tokenizer_["model"]["merges"] = nlohmann::json::array();
  }

  testing::TempDir dir_{"vocabulary"};
  nlohmann::json tokenizer_;
  std::string yaml_;
};

TEST_F(VocabularyTest, TheCommittedPackageAgrees) { EXPECT_TRUE(diagnostics().empty()) << diagnostics().text(); }

TEST_F(VocabularyTest, AddedTokenBeyondTheLogitsIsRefused) {
  add_token(700, "<tool>");
  Diagnostics d = diagnostics();
  EXPECT_TRUE(has(d, "VOCAB", "tokenizer.json", "added token '<tool>' has id 700, outside the graph's logits (515 entries)"))
      << d.text();
  for (const auto& item : d.items()) EXPECT_EQ(item.text().find(dir_.path().string()), std::string::npos) << item.text();
}

TEST_F(VocabularyTest, AddedTokenInTheVocabularyKeepsItsVocabularyId) {
  std::string in_vocab = tokenizer_["model"]["vocab"].begin().key();
  add_token(900, in_vocab);  // the vocabulary's id wins, as the tokenizer assigns it
  EXPECT_TRUE(diagnostics().empty()) << diagnostics().text();
}

TEST_F(VocabularyTest, TokenizerSmallerThanTheLogitsIsRefused) {
  drop_vocab_above(500);
  yaml_ = replace_once(yaml_, "  tokenizer:\n    algorithm: bpe\n    vocab_size: 515", "  tokenizer:\n    algorithm: bpe\n    vocab_size: 500");
  EXPECT_TRUE(diagnostics().empty()) << "declared padding: " << diagnostics().text();
  yaml_ = yaml_.substr(0, yaml_.find("package:\n  tokenizer:"));  // no package.tokenizer facts
  EXPECT_TRUE(has(diagnostics(), "VOCAB", "tokenizer.json",
                  "spans 500 ids but the graph's logits have 515: ids 500..514 would decode to nothing"))
      << diagnostics().text();
}

// Issue 34 item 1.6: a vocab_size above the tokenizer's ids is legal (models pad their embedding
// tables: Phi-3 has 32,064 rows for 32,011 tokens), as the reference accepts it.
TEST_F(VocabularyTest, VocabSizeLargerThanTheTokenizerIsLegal) {
  drop_vocab_above(500);  // tokenizer ids 0..499; logits and both vocab_size facts stay 515
  EXPECT_TRUE(diagnostics().empty()) << diagnostics().text();
}

// Only a tokenizer id at or past package.tokenizer.vocab_size is outside the vocabulary.
TEST_F(VocabularyTest, TokenizerIdOutsideTheVocabularyIsRefused) {
  yaml_ = replace_once(yaml_, "  tokenizer:\n    algorithm: bpe\n    vocab_size: 515", "  tokenizer:\n    algorithm: bpe\n    vocab_size: 514");
  EXPECT_TRUE(has(diagnostics(), "VOCAB", "package.tokenizer.vocab_size",
                  "is 514 but tokenizer.json assigns ids up to 514, outside the vocabulary"))
      << diagnostics().text();
}

TEST_F(VocabularyTest, MetadataVocabSizeMustMatchTheLogits) {
  yaml_ = replace_once(yaml_, "model:\n  vocab_size: 515", "model:\n  vocab_size: 600");
  EXPECT_TRUE(has(diagnostics(), "VOCAB", "model.vocab_size", "is 600 but the graph's logits output 'logits' has 515 entries"))
      << diagnostics().text();
}

TEST_F(VocabularyTest, UnreadableTokenizerIsReported) {
  dir_.write("tokenizer.json", "{\"model\": ");
  yaml_ = read_file(dir_.path() / "inference_metadata.yaml");
  dir_.write("inference_metadata.yaml", yaml_);
  EXPECT_TRUE(has(validate_package(dir_.path()).diagnostics, "VOCAB", "tokenizer.json", "not valid JSON"));
}

}  // namespace
}  // namespace ogai::metadata
