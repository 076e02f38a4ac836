// Package rules: metadata discovery, confinement of every named file (PKG), external data beside
// the graph, and the tokenizer / chat template / EOS sources.
#include <gtest/gtest.h>

#include <filesystem>

#include "ogai/error.h"
#include "support.h"

namespace ogai::metadata {
namespace {

namespace fs = std::filesystem;
using testing::fixture_text;
using testing::has;
using testing::replace_once;
using testing::TempDir;

std::string identity_package(const std::string& artifact) {
  return replace_once(fixture_text("validator_package"), "artifact: identity.onnx.textproto", "artifact: " + artifact);
}

// A WordLevel tokenizer.json with ids 0..n-1 (what package.tokenizer.vocab_size n declares).
std::string word_level_tokenizer(int n) {
  std::string vocab;
  for (int i = 0; i < n; ++i) vocab += (i ? ", \"t" : "\"t") + std::to_string(i) + "\": " + std::to_string(i);
  return R"({"model": {"type": "WordLevel", "vocab": {)" + vocab + "}}}";
}

const std::string kEmptyGraph = "ir_version: 8\ngraph { name: \"g\" }\nopset_import { domain: \"\" version: 13 }\n";

TEST(PackageTest, FindsYamlThenYmlThenJson) {
  TempDir dir("discovery");
  EXPECT_THROW(find_metadata_file(dir.path()), Error);
  dir.write("inference_metadata.json", "{}");
  EXPECT_EQ(find_metadata_file(dir.path()).filename(), "inference_metadata.json");
  dir.write("inference_metadata.yml", "a: 1\n");
  EXPECT_EQ(find_metadata_file(dir.path()).filename(), "inference_metadata.yml");
  dir.write("inference_metadata.yaml", "a: 1\n");
  EXPECT_EQ(find_metadata_file(dir.path()).filename(), "inference_metadata.yaml");
  dir.write("inference_metadata.mobius.yaml", "a: 1\n");  // never read
  EXPECT_EQ(find_metadata_file(dir.path()).filename(), "inference_metadata.yaml");
  try {
    validate_package(dir.path() / "missing");
    ADD_FAILURE() << "no error for a missing path";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
}

TEST(PackageTest, ReadsJsonMetadata) {
  TempDir dir("json_pkg");
  dir.write("identity.onnx.textproto", kEmptyGraph);
  dir.write("inference_metadata.json",
            R"({"schema_version": "v1", "pipeline": {"workflow": {"manifest": {"capabilities": ["workflow_ssa"]},
               "components": {"identity": {"implementation": {"kind": "onnx", "artifact": "identity.onnx.textproto"}}},
               "steps": [{"kind": "invoke", "component": "identity"}]}}})");
  ValidationReport report = validate_package(dir.path());
  EXPECT_TRUE(report.valid()) << report.diagnostics.text();
  EXPECT_EQ(report.package->graphs.size(), 1u);
}

TEST(PackageTest, ArtifactsStayInsideThePackage) {
  TempDir outside("outside");
  outside.write("secret.onnx.textproto", kEmptyGraph);
  TempDir dir("confine");
  dir.write("sub/identity.onnx.textproto", kEmptyGraph);
  auto diags = [&](const std::string& artifact) {
    dir.write("inference_metadata.yaml", identity_package(artifact));
    return validate_package(dir.path()).diagnostics;
  };
  EXPECT_TRUE(diags("sub/identity.onnx.textproto").empty());
  EXPECT_TRUE(diags("sub/../sub/identity.onnx.textproto").empty());  // `..` that stays inside is fine
  EXPECT_TRUE(has(diags("../" + outside.path().filename().string() + "/secret.onnx.textproto"), "PKG",
                  "components.identity.implementation.artifact", "outside the package"));
  EXPECT_TRUE(has(diags(outside.path().string() + "/secret.onnx.textproto"), "PKG", "artifact", "absolute"));
  fs::create_symlink(outside.path() / "secret.onnx.textproto", dir.path() / "link.onnx.textproto");
  EXPECT_TRUE(has(diags("link.onnx.textproto"), "PKG", "artifact", "symlink"));
  EXPECT_TRUE(has(diags("sub"), "PKG", "artifact", "not a regular file"));
  EXPECT_TRUE(has(diags("nope.onnx"), "PKG", "artifact", "'nope.onnx' does not exist"));
}

TEST(PackageTest, ExternalDataMustSitBesideTheGraph) {
  TempDir dir("external");
  testing::GraphSpec g;
  g.external_data = {"weights.bin"};
  dir.write("inference_metadata.yaml", identity_package("graphs/model.onnx.textproto"));
  dir.write("graphs/model.onnx.textproto", testing::graph_textproto(g));
  EXPECT_TRUE(has(validate_package(dir.path()).diagnostics, "PKG", "components.identity", "weights.bin"));
  dir.write("graphs/weights.bin", "0000");
  EXPECT_TRUE(validate_package(dir.path()).valid()) << validate_package(dir.path()).diagnostics.text();
  g.external_data = {"../../escape.bin"};
  dir.write("graphs/model.onnx.textproto", testing::graph_textproto(g));
  EXPECT_TRUE(has(validate_package(dir.path()).diagnostics, "PKG", "components.identity", "escape.bin"));
}

// Issue 12 finding 12: a truncated or empty external-data file, or an offset past its end, passed
// validation and failed only at load (with ONNX Runtime's C++ signature printed twice).
TEST(PackageTest, ExternalDataRangesMustFitTheFile) {
  TempDir dir("external_ranges");
  dir.write("inference_metadata.yaml", identity_package("model.onnx.textproto"));
  auto graph = [&](const std::string& entries) {
    dir.write("model.onnx.textproto",
              "ir_version: 8\nopset_import { domain: \"\" version: 13 }\ngraph { name: \"g\"\n"
              "  initializer { name: \"w\" data_type: 1 dims: 2 dims: 3 data_location: EXTERNAL\n"
              "    external_data { key: \"location\" value: \"model.onnx.data\" }" + entries + " }\n}\n");
    return validate_package(dir.path()).diagnostics;
  };
  auto entry = [](const char* key, const char* value) {
    return std::string(" external_data { key: \"") + key + "\" value: \"" + value + "\" }";
  };
  dir.write("model.onnx.data", std::string(24, 'x'));
  EXPECT_TRUE(graph("").empty()) << graph("").text();
  EXPECT_TRUE(graph(entry("offset", "0") + entry("length", "24")).empty());
  dir.write("model.onnx.data", std::string(40, 'x'));
  EXPECT_TRUE(graph(entry("offset", "16")).empty());
  EXPECT_TRUE(has(graph(entry("offset", "17")), "R1", "components.identity.implementation.artifact",
                  "initializer 'w' needs bytes [17, 41) of model.onnx.data, which has 40 bytes"));
  EXPECT_TRUE(has(graph(entry("offset", "4096") + entry("length", "24")), "R1", "components.identity",
                  "initializer 'w' needs bytes [4096, 4120) of model.onnx.data, which has 40 bytes"));
  EXPECT_TRUE(has(graph(entry("length", "8")), "R1", "components.identity",
                  "initializer 'w' declares 8 bytes of external data but float32[2, 3] needs 24"));
  EXPECT_TRUE(has(graph(entry("offset", "-1")), "R1", "components.identity", "offset"));
  EXPECT_TRUE(has(graph(entry("offset", "12abc")), "R1", "components.identity", "offset"));
  dir.write("model.onnx.data", std::string(20, 'x'));  // truncated
  EXPECT_TRUE(has(graph(""), "R1", "components.identity", "initializer 'w' needs bytes [0, 24) of model.onnx.data, which has 20 bytes"));
  dir.write("model.onnx.data", "");  // empty
  EXPECT_TRUE(has(graph(""), "R1", "components.identity", "which has 0 bytes"));
}

TEST(PackageTest, UnreadableGraphIsR1) {
  TempDir dir("r1");
  dir.write("inference_metadata.yaml", identity_package("broken.onnx.textproto"));
  dir.write("broken.onnx.textproto", "graph { this is not a model");
  EXPECT_TRUE(has(validate_package(dir.path()).diagnostics, "R1", "components.identity", "cannot read the ONNX graph"));
  dir.write("inference_metadata.yaml", identity_package("broken.onnx"));
  dir.write("broken.onnx", "\x0a\xff\xff\xff\xff\x0f garbage");
  EXPECT_TRUE(has(validate_package(dir.path()).diagnostics, "R1", "components.identity"));
}

TEST(PackageTest, DiscoversTokenizerTemplateAndEos) {
  TempDir dir("text");
  dir.write("identity.onnx.textproto", kEmptyGraph);
  std::string yaml = fixture_text("validator_package") +
                     "package:\n  tokenizer:\n    algorithm: bpe\n    vocab_size: 100\n"
                     "    special_tokens: {eos: {id: 2, content: '</s>'}}\n";
  dir.write("inference_metadata.yaml", yaml);
  dir.write("tokenizer.json", word_level_tokenizer(100));
  dir.write("tokenizer_config.json", R"({"chat_template": "{{ messages }}", "eos_token": {"content": "<eos>"}})");
  dir.write("generation_config.json", R"({"eos_token_id": [1, 106]})");
  ValidationReport report = validate_package(dir.path());
  ASSERT_TRUE(report.valid()) << report.diagnostics.text();
  const TextSources& t = report.package->files.text;
  EXPECT_EQ(t.tokenizer_json, dir.path() / "tokenizer.json");
  EXPECT_FALSE(t.chat_template_file);
  EXPECT_EQ(t.chat_template, "{{ messages }}");
  EXPECT_EQ(t.tokenizer_config_eos_token, "<eos>");
  EXPECT_EQ(t.generation_config_eos_ids, (std::vector<std::int64_t>{1, 106}));
  EXPECT_EQ(t.special_tokens_eos_id, 2);
  dir.write("chat_template.jinja", "{{ x }}");
  dir.write("generation_config.json", R"({"eos_token_id": 7})");
  report = validate_package(dir.path());
  EXPECT_EQ(report.package->files.text.chat_template_file, dir.path() / "chat_template.jinja");
  EXPECT_EQ(report.package->files.text.generation_config_eos_ids, (std::vector<std::int64_t>{7}));
  dir.write("tokenizer_config.json", "{not json");
  EXPECT_TRUE(has(validate_package(dir.path()).diagnostics, "PKG", "tokenizer_config.json", "not valid JSON"));
}

TEST(PackageTest, DeclaredTokenizerArtifacts) {
  TempDir dir("tok_artifacts");
  dir.write("identity.onnx.textproto", kEmptyGraph);
  std::string base = fixture_text("validator_package") + "package:\n  tokenizer:\n    algorithm: bpe\n    vocab_size: 100\n    artifacts:\n";
  dir.write("tok/tokenizer.json", word_level_tokenizer(100));
  dir.write("tok/merges.txt", "");
  dir.write("inference_metadata.yaml", base + "    - {location: tok/merges.txt}\n    - {location: tok/tokenizer.json}\n");
  ValidationReport report = validate_package(dir.path());
  ASSERT_TRUE(report.valid()) << report.diagnostics.text();
  EXPECT_EQ(report.package->files.text.tokenizer_json, dir.path() / "tok/tokenizer.json");
  dir.write("inference_metadata.yaml", base + "    - {location: tok/merges.txt}\n    - {location: tok/vocab.txt}\n");
  dir.write("tok/vocab.txt", "");
  EXPECT_TRUE(has(validate_package(dir.path()).diagnostics, "PKG", "package.tokenizer.artifacts", "tokenizer.json"));
  dir.write("inference_metadata.yaml", base + "    - {location: tok/absent.json}\n");
  EXPECT_TRUE(has(validate_package(dir.path()).diagnostics, "PKG", "package.tokenizer.artifacts[0].location", "absent.json"));
}

TEST(PackageTest, LoadPackageThrowsWithEveryProblem) {
  try {
    load_package(testing::fixture_dir("validator_missing_artifact"));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidPackage);
    EXPECT_NE(e.message().find("PKG pipeline.workflow.components.missing.implementation.artifact"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("missing.onnx"), std::string::npos);
  }
  Package p = load_package(testing::fixture_dir("decoder"));
  EXPECT_TRUE(p.decoder);
  EXPECT_EQ(p.files.component_artifacts.size(), 11u);
}

}  // namespace
}  // namespace ogai::metadata
