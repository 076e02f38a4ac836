// `ogai validate` end to end: exit codes (0 valid, 1 invalid, 2 usage/unreadable), the
// `RULE path: message` lines, and the --json / --abi output.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
const fs::path kShared = OGAI_SHARED_DIR;
const fs::path kFixtures = kShared / "conformance/metadata/fixtures";
const fs::path kCatalogue = kShared / "conformance/metadata/catalogue";

struct CliRun {
  int code = -1;
  std::string out;  // stdout only
};

CliRun ogai(const std::string& args) {
  std::string command = std::string(OGAI_EXE) + " " + args + " 2>/dev/null";
  CliRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return run;
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) run.out.append(buffer.data(), n);
  int status = pclose(pipe);
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

TEST(ValidateCliTest, ValidPackagesExitZero) {
  for (const char* name : {"decoder", "static_cache", "speculative", "validator_package"}) {
    CliRun r = ogai("validate " + quoted(kFixtures / name));
    EXPECT_EQ(r.code, 0) << name << "\n" << r.out;
    EXPECT_EQ(r.out, "valid: " + (kFixtures / name).string() + "\n");
  }
}

TEST(ValidateCliTest, InvalidPackageListsRuleLines) {
  CliRun r = ogai("validate " + quoted(kFixtures / "validator_missing_artifact"));
  EXPECT_EQ(r.code, 1);
  std::istringstream lines(r.out);
  std::string line;
  int count = 0;
  static const std::regex kLine(R"(^[A-Z][A-Z0-9-]* \S+: .+$)");
  while (std::getline(lines, line)) {
    EXPECT_TRUE(std::regex_match(line, kLine)) << line;
    ++count;
  }
  EXPECT_EQ(count, 1);
  EXPECT_NE(r.out.find("PKG pipeline.workflow.components.missing.implementation.artifact: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("missing.onnx"), std::string::npos);
  EXPECT_EQ(ogai("validate --document-only " + quoted(kFixtures / "validator_missing_artifact")).code, 0);
}

// A copy of the decoder fixture with `file` written as `text`, in a fresh temporary folder.
fs::path fixture_with(const std::string& file, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("ogai_validate_" + std::to_string(::getpid()) + "_" + file);
  fs::remove_all(dir);
  fs::copy(kFixtures / "decoder", dir, fs::copy_options::recursive);
  write_file(dir / file, text);
  return dir;
}

// A graph whose ports are intact but whose nodes ONNX Runtime cannot load (one op type's byte
// changed) once passed every rule and printed `valid` (issue 37): validate opens each graph.
TEST(ValidateCliTest, AGraphOnnxRuntimeCannotLoadIsInvalid) {
  const fs::path dir = fs::temp_directory_path() / ("ogai_validate_flip_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b", dir, fs::copy_options::recursive);
  CliRun good = ogai("validate " + quoted(dir));
  EXPECT_EQ(good.code, 0) << good.out;
  std::string bytes = read_file(dir / "model.onnx");
  const std::size_t at = bytes.find("MatMul");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 5] = 'k';  // MatMuk: no such operator
  write_file(dir / "model.onnx", bytes);
  CliRun bad = ogai("validate " + quoted(dir));
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_NE(bad.out.find("LOAD model.onnx: ONNX Runtime cannot load it"), std::string::npos) << bad.out;
  fs::remove_all(dir);
}

TEST(ValidateCliTest, RefusesOutOfRangeOrMistypedSideConfigValues) {
  for (const char* eos : {"2147483648", "-1", "\"x\"", "[2, 1.5]"}) {
    const fs::path dir = fixture_with("generation_config.json", std::string(R"({"eos_token_id": )") + eos + "}");
    CliRun r = ogai("validate " + quoted(dir));
    EXPECT_EQ(r.code, 1) << eos << "\n" << r.out;
    EXPECT_NE(r.out.find("PKG generation_config.json.eos_token_id"), std::string::npos) << r.out;
    fs::remove_all(dir);
  }
  const fs::path sampling = fixture_with("generation_config.json", R"({"top_p": 7, "temperature": -1, "top_k": 1.5})");
  CliRun s = ogai("validate " + quoted(sampling));
  EXPECT_EQ(s.code, 1);
  for (const char* key : {"top_p", "temperature", "top_k"})
    EXPECT_NE(s.out.find(std::string("generation_config.json.") + key), std::string::npos) << s.out;
  fs::remove_all(sampling);
  const fs::path tok = fixture_with("tokenizer_config.json",
                                    R"({"eos_token": 5, "add_bos_token": "yes", "chat_template": 3})");
  CliRun t = ogai("validate " + quoted(tok));
  EXPECT_EQ(t.code, 1);
  for (const char* key : {"eos_token", "add_bos_token", "chat_template"})
    EXPECT_NE(t.out.find(std::string("tokenizer_config.json.") + key), std::string::npos) << t.out;
  fs::remove_all(tok);
}

TEST(ValidateCliTest, JsonOutput) {
  CliRun bad = ogai("validate --json " + quoted(kFixtures / "validator_missing_artifact"));
  EXPECT_EQ(bad.code, 1);
  auto j = nlohmann::json::parse(bad.out);
  EXPECT_EQ(j["valid"], false);
  ASSERT_EQ(j["errors"].size(), 1u);
  EXPECT_EQ(j["errors"][0]["rule"], "PKG");
  EXPECT_EQ(j["errors"][0]["path"], "pipeline.workflow.components.missing.implementation.artifact");
  EXPECT_NE(j["errors"][0]["message"].get<std::string>().find("missing.onnx"), std::string::npos);
  EXPECT_TRUE(j["abi"].is_null());

  CliRun good = ogai("validate --json --document-only " + quoted(kCatalogue / "24-gemma4-e2b-assistant-speculative.yaml"));
  EXPECT_EQ(good.code, 0) << good.out;
  j = nlohmann::json::parse(good.out);
  EXPECT_EQ(j["valid"], true);
  EXPECT_TRUE(j["errors"].empty());
  EXPECT_EQ(j["abi"]["component"], "target");
  EXPECT_EQ(j["abi"]["kv_pairs"].size(), 6u);
  EXPECT_EQ(j["abi"]["outputs"]["hidden_states"], "hidden");
  EXPECT_EQ(j["abi"]["borrowed"].size(), 4u);
  EXPECT_EQ(j["abi"]["groups"][1]["evictable_prefix"], true);

  CliRun geometry = ogai("validate --json " + quoted(kFixtures / "decoder"));
  j = nlohmann::json::parse(geometry.out);
  EXPECT_EQ(j["abi"]["kv_pairs"][0]["geometry"]["head_dim"], 8);
  EXPECT_EQ(j["abi"]["kv_pairs"][0]["geometry"]["kv_heads"], 2);
  EXPECT_EQ(j["abi"]["kv_pairs"][0]["geometry"]["shape"][2], "component.model.past_sequence");
}

TEST(ValidateCliTest, AbiFlagPrintsTheDecoder) {
  CliRun r = ogai("validate --abi " + quoted(kFixtures / "static_cache"));
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("decoder: model"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("update indexed_scatter"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("other input write_indices (write_indices)"), std::string::npos) << r.out;
}

TEST(ValidateCliTest, UsageAndUnreadableInputExitTwo) {
  fs::path dir = fs::path(OGAI_BINARY_DIR) / "test_tmp" / "cli";
  fs::create_directories(dir);
  EXPECT_EQ(ogai("validate").code, 2);
  EXPECT_EQ(ogai("validate " + quoted(dir / "no_such_package")).code, 2);
  write_file(dir / "latin1.yaml", "schema_version: caf\xe9\n");
  EXPECT_EQ(ogai("validate " + quoted(dir / "latin1.yaml")).code, 2);
  write_file(dir / "broken.yaml", "pipeline: [\n");
  EXPECT_EQ(ogai("validate " + quoted(dir / "broken.yaml")).code, 2);
  write_file(dir / "dupes.yaml", "a: 1\na: 2\n");
  CliRun dupes = ogai("validate --json " + quoted(dir / "dupes.yaml"));
  EXPECT_EQ(dupes.code, 2);
  EXPECT_NE(nlohmann::json::parse(dupes.out)["errors"][0]["message"].get<std::string>().find("duplicate key"), std::string::npos);
  write_file(dir / "unknown.yaml", read_file(kCatalogue / "23-gemma4-e2b-decoder.yaml") + "colour: blue\n");
  CliRun unknown = ogai("validate --document-only " + quoted(dir / "unknown.yaml"));
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.out.find("P colour: unknown key 'colour'"), std::string::npos) << unknown.out;
}

}  // namespace
}  // namespace ogai
