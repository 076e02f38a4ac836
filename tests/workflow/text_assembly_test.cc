// The onnx-genai.text-assembly@1 processor (src/workflow/text_assembly.h): assembly of the
// speech_wav fixture's prompt, each transform, the request limits, and load-time refusals.
#include <gtest/gtest.h>

#include <fstream>

#include "support.h"
#include "workflow/program.h"
#include "workflow/text_assembly.h"

namespace ogai::workflow {
namespace {

using nlohmann::json;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TextAssembly speech_wav() {
  return TextAssembly::load(testing::fixture("speech_wav") / "speech_processor.json");
}

TEST(TextAssembly, SpeechWavFixture) {
  const auto p = speech_wav();
  EXPECT_EQ(p.max_input_tokens(), 256);
  EXPECT_EQ(p.max_output_units(), 64);
  EXPECT_EQ(p.state_advance_units(), 0);
  EXPECT_EQ(p.assemble("hello world", "the quick brown fox"), "the quick brown fox hello world");
  // instructions: markdown stripped, blank lines collapsed; input: blank lines collapsed only.
  EXPECT_EQ(p.assemble("one\n\n\ntwo **kept**", "# Voice\n\n**calm** and *slow*\n---\n- warm"),
            "Voice\ncalm and slow\nwarm one\ntwo **kept**");
}

TEST(TextAssembly, OutputUnitsAndInputTokens) {
  const auto p = speech_wav();
  EXPECT_EQ(p.output_units(std::nullopt, "max_output_units"), 64);
  EXPECT_EQ(p.output_units(3, "max_output_units"), 3);
  EXPECT_EQ(p.output_units(64, "max_output_units"), 64);
  for (std::int64_t bad : {0, 65, 9999}) {
    const auto e = error_of([&] { p.output_units(bad, "max_output_units"); });
    EXPECT_NE(e.find("max_output_units: is " + std::to_string(bad) + "; it must be between 1 and 64"), std::string::npos) << e;
  }
  EXPECT_EQ(p.max_new_tokens(5), 5);
  EXPECT_NO_THROW(p.check_input_tokens(256, "input"));
  EXPECT_NE(error_of([&] { p.check_input_tokens(257, "input"); }).find("257 tokens; the package allows at most 256"),
            std::string::npos);
}

TEST(TextAssembly, Transforms) {
  auto t = [](std::string kind, std::string a = "", std::string b = "") { return TextTransform{kind, a, b}; };
  EXPECT_EQ(apply_text_transform(t("rewrite_delimited_tags", "<|", "|>"), "<|TEMPO  slow |> x <|Key|> <|a\nb|>"),
            "TEMPO is slow x Key <|a\nb|>");  // a tag does not span lines
  EXPECT_EQ(apply_text_transform(t("keep_leading_bracket_tags"), "[Intro] [Soft] words\nplain [x]\n  [Outro]"),
            "[Intro] [Soft]\nplain [x]\n[Outro]");
  EXPECT_EQ(apply_text_transform(t("lowercase_bracket_tags"), "[VERSE] Keep [ÉTÉ] [] ["), "[verse] Keep [été] [] [");
  EXPECT_EQ(apply_text_transform(t("collapse_newlines"), "a\n\n\nb\nc\n\nd"), "a\nb\nc\nd");
  EXPECT_EQ(apply_text_transform(t("replace", "] ", "]\n"), "[a] x [b] y"), "[a]\nx [b]\ny");
  EXPECT_EQ(apply_text_transform(t("prefix", "[start]\n"), "go"), "[start]\ngo");
  EXPECT_EQ(apply_text_transform(t("strip_markdown"), "## Title\n* item\n***bold***\n***\ntext  \n\u2022 dot\n    code"),
            "Title\nitem\nbold\ntext\ndot\ncode");  // "***bold***": the bold pass leaves "*bold*", then the italic pass
}

TEST(TextAssembly, GuidanceRows) {
  const auto p = TextAssembly::parse(json::parse(R"({"max_input_tokens": 9, "max_output_units": 9, "state_advance_units": 2,
    "segments": [{"literal": "x"}], "guidance_rows": {"unconditional_token_id": 99, "replace_from": 1, "preserve_trailing": 1}})"),
                                     "proc.json");
  EXPECT_EQ(p.token_rows({5, 6, 7, 8}), (std::vector<std::vector<TokenId>>{{5, 6, 7, 8}, {5, 99, 99, 8}}));
  EXPECT_EQ(p.max_new_tokens(4), 6);
  EXPECT_THROW(p.token_rows({5}), Error);
}

TEST(TextAssembly, LoadRefusals) {
  auto parse = [](const char* text) { return error_of([&] { TextAssembly::parse(json::parse(text), "proc.json"); }); };
  EXPECT_NE(parse(R"({"max_input_tokens": 0, "max_output_units": 1, "segments": []})").find("proc.json.max_input_tokens"),
            std::string::npos);
  EXPECT_NE(parse(R"({"max_input_tokens": 1, "max_output_units": 1, "segments": [], "voice": "x"})").find("proc.json.voice"),
            std::string::npos);
  EXPECT_NE(parse(R"({"max_input_tokens": 1, "max_output_units": 1, "segments": [{"literal": "a", "field": "input"}]})")
                .find("exactly one of literal or field"), std::string::npos);
  EXPECT_NE(parse(R"({"max_input_tokens": 1, "max_output_units": 1, "segments": [{"field": "input",
                      "transforms": [{"kind": "translate"}]}]})").find("segments[0].transforms[0].kind"), std::string::npos);
  EXPECT_NE(parse(R"({"max_input_tokens": 1, "max_output_units": 1, "segments": [{"field": "voice"}]})").find("segments[0].field"),
            std::string::npos);
}

// A copy of the speech_wav fixture in the build folder with `edit` applied to its document.
std::filesystem::path edited_fixture(const std::string& name, const std::function<std::string(std::string)>& edit) {
  const auto dir = std::filesystem::path(OGAI_BINARY_DIR) / "test_workflow_media" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy(testing::fixture("speech_wav"), dir, std::filesystem::copy_options::recursive);
  std::ifstream in(dir / "inference_metadata.yaml");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(dir / "inference_metadata.yaml") << edit(doc);
  return dir;
}

TEST(TextAssembly, FoundInThePackage) {
  const auto found = find_text_assembly(testing::program("speech_wav").package);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->name, "speech_text_assembly");
  EXPECT_EQ(found->processor.max_output_units(), 64);
}

TEST(TextAssembly, TwoAdaptersAreRefusedNamingBoth) {
  const auto dir = edited_fixture("two_adapters", [](std::string doc) {
    const std::string block = "      speech_text_assembly:\n";
    const auto at = doc.find(block);
    const auto end = doc.find("    steps:");
    const std::string copy = doc.substr(at, end - at);
    std::string second = copy;
    second.replace(0, block.size(), "      second_assembly:\n");
    return doc.insert(end, second);
  });
  const Program p = load_program(dir);
  const auto e = error_of([&] { find_text_assembly(p.package); });
  EXPECT_NE(e.find("speech_text_assembly, second_assembly"), std::string::npos) << e;
}

}  // namespace
}  // namespace ogai::workflow
