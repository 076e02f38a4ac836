// Model::prepare_chat (include/ogai/chat.h) on tiny-e2b: ogai's fallbacks for a template without
// tool syntax, the checks of tools / tool choice / template variables, and a forced call
// generated and parsed back, also when the template opens a reasoning section in the prompt.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
const fs::path kTiny = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b";

const Tool kAdd{"add", "adds", R"({"type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":9}},"required":["a"],"additionalProperties":false})"};

Error error_of(const Model& m, const ChatOptions& o) {
  try {
    m.prepare_chat(std::vector<ChatMessage>{{"user", "hi"}}, o);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an ogai::Error";
  return Error(ErrorCode::kInternal, "", "");
}

// tiny-e2b with the chat template `source` (in a temporary folder).
fs::path package_with_template(const std::string& source) {
  const fs::path dir = fs::temp_directory_path() / ("ogai_chat_api_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(kTiny, dir);
  std::ofstream(dir / "chat_template.jinja") << source;
  return dir;
}

ChatReply forced_reply(const Model& m, const ChatPrompt& p) {
  GenerationOptions o;
  o.response_format = p.constraint;
  o.add_special_tokens = false;
  o.max_new_tokens = 80;
  o.sampling.temperature = 0;
  GenerationResult r = m.generate(p.text, o);
  EXPECT_EQ(r.finish_reason, FinishReason::kEos) << r.text;
  return parse_chat_reply(p, r.text);
}

TEST(PrepareChat, FallbacksForATemplateWithoutTools) {
  auto m = Model::load(kTiny);
  ChatOptions o;
  o.tools = {kAdd};
  ChatPrompt p = m->prepare_chat(std::vector<ChatMessage>{{"user", "hi"}}, o);
  EXPECT_NE(p.text.find("<tools>"), std::string::npos) << p.text;  // ogai described the tools
  EXPECT_EQ(p.tool_call_format, ToolCallFormat::kHermes);
  EXPECT_TRUE(p.parse_tool_calls);
  EXPECT_FALSE(p.constraint.has_value());  // auto: free text
  EXPECT_TRUE(p.reasoning_open.empty());
  o.tool_choice.mode = ToolChoice::Mode::kNone;
  EXPECT_FALSE(m->prepare_chat(std::vector<ChatMessage>{{"user", "hi"}}, o).parse_tool_calls);
  // Without tools the rendering is render_chat's.
  EXPECT_EQ(m->prepare_chat(std::vector<ChatMessage>{{"user", "hi"}}, ChatOptions{}).text,
            m->render_chat(std::vector<ChatMessage>{{"user", "hi"}}));
}

TEST(PrepareChat, BadToolsChoicesAndVariablesNameTheField) {
  auto m = Model::load(kTiny);
  ChatOptions o;
  o.tool_choice.mode = ToolChoice::Mode::kRequired;
  EXPECT_EQ(error_of(*m, o).where(), "tool_choice");
  o.tools = {kAdd};
  o.tool_choice = {ToolChoice::Mode::kFunction, "sub"};
  EXPECT_EQ(error_of(*m, o).where(), "tool_choice.function.name");
  o.tool_choice = {};
  o.tools.push_back({"g", "", R"({"type":"object","properties":{"x":{"not":{"minLength":2}}}})"});
  Error e = error_of(*m, o);
  EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  EXPECT_EQ(e.where(), "tools[1].function.parameters");
  EXPECT_NE(std::string(e.what()).find("keyword 'not'"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("at '#/properties/x/not'"), std::string::npos) << e.what();
  o.tools = {kAdd};
  o.template_kwargs["enable_thinking"] = "nope";
  EXPECT_EQ(error_of(*m, o).where(), "chat_template_kwargs.enable_thinking");
}

TEST(PrepareChat, ForcedCallIsGeneratedAndParsed) {
  // A short template (tiny-e2b's context is 512 positions; ogai's tool description would not fit).
  const fs::path pkg = package_with_template(
      "{%- for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor -%}"
      "{%- for t in tools %}tool: {{ t.function.name }}\n{% endfor %}assistant: ");
  auto m = Model::load(pkg);
  ChatOptions o;
  o.tools = {kAdd, {"ping", "", ""}};
  o.tool_choice = {ToolChoice::Mode::kFunction, "add"};
  ChatPrompt p = m->prepare_chat(std::vector<ChatMessage>{{"user", "hi"}}, o);
  ASSERT_TRUE(p.constraint.has_value());
  EXPECT_EQ(p.constraint->kind, ResponseFormat::Kind::kToolCalls);
  ChatReply reply = forced_reply(*m, p);
  ASSERT_EQ(reply.tool_calls.size(), 1u);
  EXPECT_EQ(reply.tool_calls[0].name, "add");
  auto args = nlohmann::json::parse(reply.tool_calls[0].arguments);
  ASSERT_TRUE(args["a"].is_number_integer());
  EXPECT_LE(args["a"].get<int>(), 9);
  EXPECT_EQ(reply.content, "");
  fs::remove_all(pkg);
}

TEST(PrepareChat, APromptThatOpensReasoningIsClosedBeforeTheCall) {
  const fs::path pkg = package_with_template(
      "{%- for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor -%}"
      "{%- if tools %}tools: {{ tools | length }}\n{% endif -%}"
      "{%- if enable_thinking is defined and not enable_thinking %}assistant: <think></think>\n"
      "{%- else %}assistant: <think>\n{% endif -%}");
  auto m = Model::load(pkg);
  ChatOptions o;
  o.tools = {kAdd};
  o.tool_choice.mode = ToolChoice::Mode::kRequired;
  o.parallel_tool_calls = false;
  ChatPrompt p = m->prepare_chat(std::vector<ChatMessage>{{"user", "hi"}}, o);
  EXPECT_NE(p.text.find("tools: 1"), std::string::npos) << p.text;  // this template reads `tools`
  EXPECT_EQ(p.text.find("<tools>"), std::string::npos) << p.text;
  EXPECT_EQ(p.reasoning_open, "<think>");
  EXPECT_TRUE(p.starts_in_reasoning);
  ChatReply reply = forced_reply(*m, p);
  ASSERT_EQ(reply.tool_calls.size(), 1u);
  EXPECT_EQ(reply.reasoning_content, "");
  o.template_kwargs["enable_thinking"] = "false";
  EXPECT_FALSE(m->prepare_chat(std::vector<ChatMessage>{{"user", "hi"}}, o).starts_in_reasoning);
  fs::remove_all(pkg);
}

// Content parts (include/ogai/media.h): text parts render as the message's text; a media part
// on a text-only package is refused by name, never dropped.
TEST(PrepareChat, TextPartsRenderAsContentAndMediaIsRefusedByName) {
  auto m = Model::load(kTiny);
  ChatMessage parts;
  parts.role = "user";
  parts.parts = {ContentPart{ContentPart::Kind::kText, "hello ", {}}, ContentPart{ContentPart::Kind::kText, "there", {}}};
  EXPECT_EQ(m->render_chat(std::vector<ChatMessage>{parts}), m->render_chat(std::vector<ChatMessage>{{"user", "hello there"}}));
  ChatMessage image = parts;
  image.parts.push_back(ContentPart{ContentPart::Kind::kImage, "", MediaInput{MediaInput::Kind::kImage, "\x89PNG", "", ""}});
  try {
    m->prepare_chat(std::vector<ChatMessage>{{"system", "s"}, image}, ChatOptions{});
    ADD_FAILURE() << "expected an ogai::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_EQ(e.where(), "messages[1].parts[2]");
  }
  GenerationOptions o;
  o.max_new_tokens = 1;
  o.media.push_back(MediaInput{MediaInput::Kind::kAudio, "RIFF", "", ""});
  try {
    m->generate("hi", o);
    ADD_FAILURE() << "expected an ogai::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_EQ(e.where(), "media[0]");
  }
}

}  // namespace
}  // namespace ogai
