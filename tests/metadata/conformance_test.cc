// The onnx-genai v1 conformance set (digest §5): the catalogue is document-valid, the fixture
// packages are valid with their graphs admitted, and every derived negative is rejected by the
// rule the digest names.
#include <gtest/gtest.h>

#include <filesystem>

#include "support.h"

namespace ogai::metadata {
namespace {

namespace fs = std::filesystem;
using testing::catalogue_text;
using testing::check;
using testing::erase_line;
using testing::fixture_dir;
using testing::fixture_text;
using testing::has;
using testing::replace_once;

TEST(ConformanceTest, EveryCatalogueDocumentIsValid) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(testing::shared_path("conformance/metadata/catalogue"))) {
    if (entry.path().extension() != ".yaml") continue;
    ValidationReport report = validate_package(entry.path(), {.document_only = true, .optimum_dtype = {}});
    EXPECT_TRUE(report.valid()) << entry.path() << "\n" << report.diagnostics.text();
    ++count;
  }
  EXPECT_EQ(count, 25);  // the reference asserts all 25 validate (its tests/catalogue.rs)
}

// The reference runs every fixture of the shared conformance set, so each is a valid document.
TEST(ConformanceTest, EveryFixtureDocumentIsValid) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(testing::shared_path("conformance/metadata/fixtures"))) {
    if (!fs::exists(entry.path() / "inference_metadata.yaml")) continue;
    ValidationReport report = validate_package(entry.path(), {.document_only = true, .optimum_dtype = {}});
    EXPECT_TRUE(report.valid()) << entry.path() << "\n" << report.diagnostics.text();
    ++count;
  }
  EXPECT_GE(count, 11);
}

TEST(ConformanceTest, FixturePackagesAreValidWithTheirGraphs) {
  for (const char* name : {"decoder", "static_cache", "speculative", "validator_package"}) {
    ValidationReport report = validate_package(fixture_dir(name));
    EXPECT_TRUE(report.valid()) << name << "\n" << report.diagnostics.text();
    ASSERT_TRUE(report.package);
    EXPECT_FALSE(report.package->graphs.empty()) << name;
  }
}

TEST(ConformanceTest, MissingArtifactIsInvalidAndNamed) {
  ValidationReport doc_only =
      validate_package(fixture_dir("validator_missing_artifact"), {.document_only = true, .optimum_dtype = {}});
  EXPECT_TRUE(doc_only.valid()) << doc_only.diagnostics.text();
  ValidationReport full = validate_package(fixture_dir("validator_missing_artifact"));
  EXPECT_FALSE(full.valid());
  EXPECT_TRUE(has(full.diagnostics, "PKG", "components.missing.implementation.artifact", "missing.onnx"))
      << full.diagnostics.text();
}

// ---- derived negatives ---------------------------------------------------------------------

void expect_rule(const std::string& text, const std::string& rule, const std::string& label) {
  Diagnostics d = check(text);
  EXPECT_TRUE(d.has_rule(rule)) << label << ": expected " << rule << ", got:\n" << d.text();
}

const std::string k24 = "24-gemma4-e2b-assistant-speculative.yaml";

TEST(ConformanceTest, Example24FoldedCarryNegatives) {
  const std::string base = catalogue_text(k24);
  ASSERT_TRUE(check(base).empty());
  const std::string carry = "    folded_carry_output: next_projected_state\n";
  const std::string context = "    target_hidden_context: inputs_embeds\n";
  const std::string seed = "    folded_carry_seed: {component: target, output: hidden}\n";
  const std::string embedding = "    token_embedding: {component: target, table: model.embed_tokens.weight}\n";
  std::vector<std::pair<std::string, std::string>> cases = {
      {"delete folded_carry_output", erase_line(base, carry)},
      {"folded_carry_output not a port", replace_once(base, carry, "    folded_carry_output: not_a_real_port\n")},
      {"delete target_hidden_context", erase_line(base, context)},
      {"context not an input", replace_once(base, context, "    target_hidden_context: not_a_real_input\n")},
      {"context not the fused input", replace_once(base, context, "    target_hidden_context: shared_kv.full_attention.key\n")},
      {"delete folded_carry_seed", erase_line(base, seed)},
      {"seed ghost component", replace_once(base, seed, "    folded_carry_seed: {component: ghost, output: hidden}\n")},
      {"seed not an output", replace_once(base, seed, "    folded_carry_seed: {component: target, output: not_an_output}\n")},
      {"seed on the proposer", replace_once(base, seed, "    folded_carry_seed: {component: assistant, output: draft_logits}\n")},
      {"delete token_embedding", erase_line(base, embedding)},
      {"embedding ghost", replace_once(base, embedding, "    token_embedding: {component: ghost, table: model.embed_tokens.weight}\n")},
      {"embedding on the proposer", replace_once(base, embedding, "    token_embedding: {component: assistant, table: model.embed_tokens.weight}\n")},
      {"embedding empty table", replace_once(base, embedding, "    token_embedding: {component: target, table: \"\"}\n")},
      {"rollback below the width", testing::replace_all(base, "rollback_positions: 4", "rollback_positions: 2")},
  };
  for (const auto& [label, text] : cases) expect_rule(text, "V-SPEC", label);
}

TEST(ConformanceTest, Example24ReadOnlyAliasNeedsAccess) {
  std::string text = replace_once(catalogue_text(k24),
                                  "full_key_1: {input: shared_kv.full_attention.key, access: read_only, role: key}",
                                  "full_key_1: {input: shared_kv.full_attention.key, role: key}");
  Diagnostics d = check(text);
  EXPECT_TRUE(has(d, "V-GROUP", "ports.assistant.full_key_1", "declares no output")) << d.text();
}

TEST(ConformanceTest, Example22RecurrentChainNegatives) {
  const std::string base = catalogue_text("22-qwen3-chained-speculative-decoding.yaml");
  ASSERT_TRUE(check(base).empty());
  expect_rule(replace_once(base, "state: draft_cache", "state: target_cache"), "V-SPEC", "state target_cache");
  expect_rule(replace_once(base, "draft_cache: {input: past_key_values, output: present_key_values}",
                           "draft_cache: {input: past_key_values, output: present_key_values, access: read_only}"),
              "V-SPEC", "read_only draft_cache");
  expect_rule(replace_once(base, "{state: draft_cache, input: past_key_values, output: present_key_values}",
                           "{state: draft_cache, input: past_key_values, output: next_hidden}"),
              "V-SPEC", "output next_hidden");
}

TEST(ConformanceTest, Examples23And25Negatives) {
  for (const std::string file : {"23-gemma4-e2b-decoder.yaml", "25-gemma4-26b-a4b-moe-decoder.yaml"}) {
    const std::string base = catalogue_text(file);
    ASSERT_TRUE(check(base).empty()) << file;
    expect_rule(erase_line(base, "roles: {input_ids: token_ids, logits: logits}"), "V-ROLE", file + " roles");
    expect_rule(erase_line(base, "accepted_len: request.accepted_len"), "V-SERVE", file + " accepted_len");
    expect_rule(erase_line(base, "management: runtime"), "V-LIFE", file + " management");
    std::string with_io = base.find("\nmodel:\n") == std::string::npos
                              ? replace_once(base, "schema_version: v1\n", "schema_version: v1\nmodel: {io: {token_input: input_ids}}\n")
                              : replace_once(base, "\nmodel:\n", "\nmodel:\n  io: {token_input: input_ids}\n");
    expect_rule(with_io, "V-ABI", file + " model.io");
    expect_rule(replace_once(base, "capabilities: [workflow_ssa, typed_emit, serving_service_contract]",
                             "capabilities: [workflow_ssa, typed_emit]"),
                "V-CAP", file + " manifest");
  }
}

TEST(ConformanceTest, Example18ScatterNegatives) {
  const std::string base = catalogue_text("18-static-cache-indexed-scatter.yaml");
  expect_rule(erase_line(base, "logical_lengths: cache_lengths"), "V-UPDATE", "logical_lengths");
  expect_rule(replace_once(base, "              write_indices_ports:\n                decoder: write_indices\n", ""),
              "V-UPDATE", "write_indices_ports");
}

TEST(ConformanceTest, StaticCacheFixtureNeedsKvLengthPorts) {
  std::string text = fixture_text("static_cache");
  text = replace_once(text, "              kv_length_ports:\n                model: cache_lengths\n", "");
  expect_rule(text, "V-UPDATE", "kv_length_ports");
}

}  // namespace
}  // namespace ogai::metadata
