// make_sequence (sequence_factory.h), the one way a LiveSequence is made: the speculation it is
// given becomes the sequence's Speculative facet (or is refused for requests it cannot serve), the
// state it is given is continued; and the token-id boundary of a package document
// (package_config.cc: a document's eos id outside TokenId's range is refused by name).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>

#include "generate/model_impl.h"
#include "generate/sequence_factory.h"
#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;

// Only make_sequence() can make the key LiveSequence's constructor asks for.
static_assert(!std::is_default_constructible_v<generate::SequenceKey>);

const fs::path kStories = fs::path(OGAI_BINARY_DIR) / "packages" / "stories260k";

std::shared_ptr<const Model> stories() {
  static std::shared_ptr<const Model> model = Model::load(kStories);
  return model;
}

generate::ResolvedRequest resolve(const GenerationOptions& o, std::size_t prompt) {
  return generate::resolve_request(o, stories()->impl().config.generation, static_cast<std::int64_t>(prompt));
}

GenerationOptions ngram(GenerationOptions o) {
  o.speculative.drafter = SpeculativeOptions::Drafter::kNgram;
  o.speculative.max_draft_tokens = 3;
  return o;
}

TEST(SequenceFactory, SpeculationBecomesTheSpeculativeFacet) {
  const Model::Impl& m = stories()->impl();
  const std::vector<TokenId> ids = stories()->tokenize("Once upon a time");
  GenerationOptions o;
  o.max_new_tokens = 4;
  const auto request = resolve(o, ids.size());
  auto plain = generate::make_sequence({m.sequence_model(), request, ids});
  EXPECT_EQ(plain->speculation(), nullptr);
  EXPECT_EQ(plain->prompt().size(), ids.size());
  auto speculative =
      generate::make_sequence({m.sequence_model(), request, ids, {}, m.speculation(ngram(o).speculative)});
  ASSERT_NE(speculative->speculation(), nullptr);
  EXPECT_TRUE(speculative->speculation()->drafts_from_tokens());  // the n-gram drafter reads tokens only
  EXPECT_TRUE(speculative->speculation()->trims_drafts());        // greedy
}

TEST(SequenceFactory, RefusesASpeculationTheRequestCannotUse) {
  const Model::Impl& m = stories()->impl();
  const std::vector<TokenId> ids = stories()->tokenize("Once upon a time");
  GenerationOptions o = ngram({});
  o.logprobs = 1;
  o.prompt_logprobs = true;
  const auto request = resolve(o, ids.size());
  try {
    generate::make_sequence({m.sequence_model(), request, ids, {}, m.speculation(o.speculative)});
    FAIL() << "prompt logprobs with speculation were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_EQ(e.where(), "prompt_logprobs");
  }
}

// The state given to make_sequence is continued: only the prompt beyond what it holds is fed.
TEST(SequenceFactory, ContinuesTheStateItIsGiven) {
  const Model::Impl& m = stories()->impl();
  const generate::SequenceModel sm = m.sequence_model();
  const std::vector<TokenId> first = stories()->tokenize("Once upon a time");
  GenerationOptions o;
  o.max_new_tokens = 3;
  generate::SequenceState state(sm.decoder);
  generate::generate_sequence(sm, resolve(o, first.size()), first, state, {}, {});
  std::vector<TokenId> next = state.tokens;
  ASSERT_GT(next.size(), first.size());
  const std::size_t held = next.size();
  next.push_back(first[1]);
  next.push_back(first[2]);
  auto sequence = generate::make_sequence({sm, resolve(o, next.size()), next, {}, {}, std::move(state)});
  ASSERT_TRUE(sequence->has_state());
  EXPECT_EQ(sequence->state().tokens.size(), held);
  EXPECT_EQ(sequence->prefill_remaining(), next.size() - held);
}

TEST(SequenceFactory, DocumentEosIdBeyondTokenIdIsRefusedByName) {
  const fs::path copy = fs::path(OGAI_BINARY_DIR) / "test_tmp" / "stories-wide-eos";
  fs::remove_all(copy);
  fs::create_directories(copy);
  for (const auto& entry : fs::directory_iterator(kStories))
    fs::copy(entry.path(), copy / entry.path().filename(), fs::copy_options::recursive);
  std::string yaml, line;
  {
    std::ifstream in(kStories / "inference_metadata.yaml");
    while (std::getline(in, line)) {
      const auto at = line.find("eos: {id: 2,");
      if (at != std::string::npos) line.replace(at, 12, "eos: {id: 4294967298,");
      yaml += line + "\n";
    }
  }
  ASSERT_NE(yaml.find("4294967298"), std::string::npos) << "the package's eos line moved";
  fs::remove(copy / "inference_metadata.yaml");
  std::ofstream(copy / "inference_metadata.yaml") << yaml;
  try {
    Model::load(copy);
    FAIL() << "an eos id of 2^32 + 2 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidPackage);
    EXPECT_EQ(std::string(e.where()), "package.tokenizer.special_tokens.eos.id") << e.what();
    EXPECT_NE(std::string(e.what()).find("4294967298"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ogai
