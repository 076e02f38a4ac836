// ChatTemplate: sources (a .jinja file, tokenizer_config.json with a string or named templates,
// a package directory), special tokens, template choice, request variables, thread safety.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "base/file.h"
#include "chat/chat_template.h"
#include "ogai/error.h"

namespace ogai::chat {
namespace {

namespace fs = std::filesystem;

const fs::path kShared = OGAI_SHARED_DIR;

fs::path scratch(const std::string& name) {
  fs::path p = fs::path(OGAI_BINARY_DIR) / "chat_template_test" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

ChatRequest conversation(bool generation_prompt = true) {
  ChatRequest r;
  r.messages = Json::parse(R"([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"},
                               {"role": "user", "content": "Bye"}])");
  r.add_generation_prompt = generation_prompt;
  return r;
}

TEST(ChatTemplate, TokenizerConfigGivesTemplateAndSpecialTokens) {
  auto t = ChatTemplate::load(kShared / "chat_templates/gemma.tokenizer_config.json");
  EXPECT_EQ(t.special_tokens()["bos_token"], "<bos>");
  EXPECT_EQ(t.special_tokens()["additional_special_tokens"], Json::parse(R"(["<start_of_turn>", "<end_of_turn>"])"));
  EXPECT_EQ(t.render(conversation()),
            "<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\nHello<end_of_turn>\n"
            "<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n");
}

TEST(ChatTemplate, NullSpecialTokensAreLeftUndefined) {
  auto t = ChatTemplate::load(kShared / "chat_templates/qwen2.5.tokenizer_config.json");
  EXPECT_FALSE(t.special_tokens().contains("bos_token"));
  EXPECT_EQ(t.special_tokens()["eos_token"], "<|im_end|>");
}

TEST(ChatTemplate, RaiseExceptionReachesTheCaller) {
  auto t = ChatTemplate::load(kShared / "chat_templates/gemma.tokenizer_config.json");
  ChatRequest r = conversation();
  r.messages.insert(r.messages.begin(), Json{{"role", "system"}, {"content", "S"}});
  try {
    t.render(r);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(e.message(), "System role not supported");
  }
}

TEST(ChatTemplate, NamedTemplatesChooseToolUseWhenToolsAreGiven) {
  fs::path dir = scratch("named");
  write_file(dir / "tokenizer_config.json", R"({
    "bos_token": {"__type": "AddedToken", "content": "<s>"},
    "chat_template": [{"name": "default", "template": "D{{ bos_token }}"},
                      {"name": "tool_use", "template": "T{{ tools|length }}"},
                      {"name": "rag", "template": "R"}]})");
  auto t = ChatTemplate::load(dir / "tokenizer_config.json");
  ChatRequest r = conversation();
  EXPECT_EQ(t.render(r), "D<s>");
  r.tools = Json::array({Json::object()});
  EXPECT_EQ(t.render(r), "T1");
  r.template_name = "rag";
  EXPECT_EQ(t.render(r), "R");
  r.template_name = "nope";
  EXPECT_THROW(t.render(r), Error);
}

TEST(ChatTemplate, PackageDirectoryPrefersTheJinjaFile) {
  fs::path dir = scratch("package");
  write_file(dir / "tokenizer_config.json", R"({"eos_token": "</s>", "chat_template": "from config"})");
  EXPECT_EQ(ChatTemplate::load(dir).render(conversation()), "from config");
  write_file(dir / "chat_template.jinja", "{{ messages|length }}{{ eos_token }}\n");
  fs::create_directories(dir / "additional_chat_templates");
  write_file(dir / "additional_chat_templates/brief.jinja", "brief");
  auto t = ChatTemplate::load(dir);
  EXPECT_EQ(t.render(conversation()), "3</s>");
  EXPECT_EQ(t.names(), (std::vector<std::string>{"brief", "default"}));
}

TEST(ChatTemplate, VariablesReachTheTemplateAndOverrideTokens) {
  auto t = ChatTemplate::from_string("{{ enable_thinking }}|{{ bos_token }}|{{ tools }}|{{ documents }}|{{ add_generation_prompt }}", "t");
  t.set_special_token("bos_token", "<s>");
  ChatRequest r = conversation(false);
  EXPECT_EQ(t.render(r), "|<s>|||false");
  r.variables = Json{{"enable_thinking", false}, {"bos_token", "B"}};
  EXPECT_EQ(t.render(r), "false|B|||false");
}

TEST(ChatTemplate, MissingOrEmptySourcesAreClearErrors) {
  fs::path dir = scratch("empty");
  try {
    ChatTemplate::load(dir);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("no chat template"), std::string::npos);
  }
  write_file(dir / "tokenizer_config.json", "{not json");
  EXPECT_THROW(ChatTemplate::load(dir / "tokenizer_config.json"), Error);
  EXPECT_THROW(ChatTemplate::load(dir / "absent.jinja"), Error);
  write_file(dir / "bad.jinja", "{% if %}");
  try {
    ChatTemplate::load(dir / "bad.jinja");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kParse);
    EXPECT_EQ(e.where(), (dir / "bad.jinja").string() + ":1:7");
  }
}

// Issue 12 finding 9: a package's tokenizer_config.json nested 150,000 deep with a sibling key.
TEST(ChatTemplate, DeeplyNestedTokenizerConfigIsRefusedWhileParsing) {
  fs::path dir = scratch("deep");
  std::string deep = R"({"chat_template": "x", "extra": )" + std::string(150000, '[') + std::string(150000, ']') + R"(, "eos_token": "</s>"})";
  write_file(dir / "tokenizer_config.json", deep);
  for (const fs::path& source : {dir, dir / "tokenizer_config.json"}) {
    try {
      ChatTemplate::load(source);
      FAIL() << source;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kParse);
      EXPECT_EQ(e.where(), (dir / "tokenizer_config.json").string());
      EXPECT_EQ(e.message(), "JSON nested more than 256 levels deep");
    }
  }
}

TEST(ChatTemplate, RendersConcurrentlyFromManyThreads) {
  auto t = ChatTemplate::load(kShared / "chat_templates/qwen2.5.tokenizer_config.json");
  ChatRequest r = conversation();
  r.tools = Json::parse(R"([{"type": "function", "function": {"name": "f", "parameters": {"b": 1, "a": 2}}}])");
  const std::string expected = t.render(r);
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      for (int k = 0; k < 200; ++k)
        if (t.render(r) != expected) ++mismatches;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_NE(expected.find(R"({"type": "function", "function": {"name": "f", "parameters": {"b": 1, "a": 2}}})"), std::string::npos);
}

}  // namespace
}  // namespace ogai::chat
