// Response templates (chat/reply/): every built-in family's calls round-trip (rendered through the
// real template where ../shared has one, else written in the family's syntax) over generated
// arguments; whole and streamed parses agree at every split point; tool-call arguments stream in
// pieces; malformed templates fail naming the key's path; Gemma-4's response_schema agrees with
// the built-in; hostile regexes and 1 MB replies stay bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "chat/chat_template.h"
#include "chat/reply/builtin_templates.h"
#include "chat/reply/reply_layout.h"
#include "chat/reply/response_parser.h"
#include "chat/reply/schema_parser.h"
#include "chat/tool_call_format.h"

namespace ogai::chat::reply {
namespace {

namespace fs = std::filesystem;
const fs::path kTemplates = fs::path(OGAI_SHARED_DIR) / "chat_templates";
using Plain = nlohmann::json;  // unordered: compares objects by content

// Arguments with quotes, newlines, backslashes, unicode, nesting, arrays, numbers, null, {}.
std::vector<Json> generated_arguments() {
  std::vector<Json> out = {
      Json::object(),
      {{"city", "Paris"}},
      {{"q", "say \"hi\"\nthen\ttab \\ back"}, {"n", 3}, {"x", -2.5}},
      {{"text", "日本語 ünï 🙂"}, {"ok", true}, {"no", false}, {"none", nullptr}},
      {{"nested", {{"a", {{"b", Json::array({1, 2, {{"c", "d"}}})}}}, {"e", Json::object()}}}, {"list", Json::array()}},
  };
  std::mt19937 rng(7);
  const std::vector<std::string> words = {"a", "b\"", "c\nd", "é", "{x}", "[y]", "k:v", ",", "\\"};
  for (int i = 0; i < 6; ++i) {
    Json j = Json::object();
    for (int k = 0; k < 3; ++k) {
      const std::string key = "k" + std::to_string(k);
      switch (rng() % 4) {
        case 0: j[key] = words[rng() % words.size()] + words[rng() % words.size()]; break;
        case 1: j[key] = static_cast<int>(rng() % 1000) - 500; break;
        case 2: j[key] = Json::array({words[rng() % words.size()], static_cast<int>(rng() % 9)}); break;
        default: j[key] = {{"inner", words[rng() % words.size()]}};
      }
    }
    out.push_back(j);
  }
  return out;
}

struct Streamed {
  std::string content, reasoning;
  std::vector<std::pair<std::string, std::string>> calls;  // name, arguments
  int argument_pieces = 0;
  bool operator==(const Streamed&) const = default;
};

Streamed collect(ResponseParser& p, const std::vector<std::string>& pieces) {
  Streamed s;
  auto take = [&](const ChatReplyDelta& d) {
    s.content += d.content;
    s.reasoning += d.reasoning_content;
    for (const auto& c : d.tool_calls) {
      if (!c.id.empty()) {
        EXPECT_EQ(c.arguments, "");  // the first delta: id and name only
        EXPECT_EQ(static_cast<std::size_t>(c.index), s.calls.size());
        s.calls.push_back({c.name, ""});
      } else {
        s.calls.at(static_cast<std::size_t>(c.index)).second += c.arguments;
        ++s.argument_pieces;
      }
    }
  };
  for (const auto& piece : pieces) take(p.feed(piece));
  take(p.finish());
  return s;
}

// Parses whole, then split in two at every point, then byte by byte; all must agree (and agree
// with reply()). Returns the whole parse's message.
Json parse_every_way(const std::shared_ptr<const ResponseTemplate>& t, const std::string& prefix,
                     const std::string& text, Streamed* whole_out = nullptr) {
  ResponseParser whole(t, prefix);
  Streamed w = collect(whole, {text});
  w.argument_pieces = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    ResponseParser p(t, prefix);
    Streamed s = collect(p, {text.substr(0, i), text.substr(i)});
    s.argument_pieces = 0;
    EXPECT_EQ(s, w) << "split at " << i << " of: " << text;
    if (!(s == w)) break;
  }
  std::vector<std::string> bytes;
  for (char c : text) bytes.emplace_back(1, c);
  ResponseParser p(t, prefix);
  Streamed b = collect(p, bytes);
  const int pieces = b.argument_pieces;
  b.argument_pieces = 0;
  EXPECT_EQ(b, w) << "byte by byte: " << text;
  EXPECT_EQ(p.reply().content, w.content);
  w.argument_pieces = pieces;
  if (whole_out) *whole_out = w;
  return whole.message();
}

void expect_calls(const Json& message, const std::vector<std::pair<std::string, Json>>& calls, const std::string& what) {
  ASSERT_TRUE(message.contains("tool_calls")) << what << "\n" << message.dump();
  ASSERT_EQ(message["tool_calls"].size(), calls.size()) << what;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Json& f = message["tool_calls"][i]["function"];
    EXPECT_EQ(message["tool_calls"][i]["type"], "function");
    EXPECT_EQ(f["name"], calls[i].first) << what;
    EXPECT_EQ(Plain::parse(f["arguments"].dump()), Plain::parse(calls[i].second.dump())) << what << "\n" << f.dump();
  }
}

// The rendered conversation split at the last `anchor`: (prefix, reply).
std::pair<std::string, std::string> split_at(const std::string& rendered, const std::string& anchor) {
  const std::size_t at = rendered.rfind(anchor);
  EXPECT_NE(at, std::string::npos);
  return {rendered.substr(0, at + anchor.size()), rendered.substr(at + anchor.size())};
}

std::string render_calls(const fs::path& file, const std::vector<std::pair<std::string, Json>>& calls) {
  ChatTemplate t = ChatTemplate::load(file);
  ChatRequest r;
  Json tc = Json::array();
  for (std::size_t i = 0; i < calls.size(); ++i)
    tc.push_back({{"id", "call_" + std::to_string(i)}, {"type", "function"},
                  {"function", {{"name", calls[i].first}, {"arguments", calls[i].second}}}});
  r.messages = Json::array({{{"role", "user"}, {"content", "go"}}, {{"role", "assistant"}, {"content", ""}, {"tool_calls", tc}}});
  return t.render(r);
}

TEST(ResponseTemplate, GemmaCallsRoundTripThroughItsTemplate) {
  const auto t = builtin_template("gemma4", false);
  for (const Json& args : generated_arguments()) {
    const std::vector<std::pair<std::string, Json>> calls = {{"get_weather", args}, {"second", {{"x", 1}}}};
    auto [prefix, reply] = split_at(render_calls(kTemplates / "gemma-4.chat_template.jinja", calls), "<|turn>model\n");
    ASSERT_NE(reply.find("<|tool_call>call:get_weather{"), std::string::npos) << reply;
    expect_calls(parse_every_way(t, prefix, reply), calls, reply);
  }
}

TEST(ResponseTemplate, HermesCallsRoundTripThroughQwenTemplate) {
  const auto t = builtin_template("hermes", false);
  for (const Json& args : generated_arguments()) {
    const std::vector<std::pair<std::string, Json>> calls = {{"f", args}, {"g", Json::object()}};
    auto [prefix, reply] = split_at(render_calls(kTemplates / "qwen2.5.tokenizer_config.json", calls),
                                    "<|im_start|>assistant\n");
    expect_calls(parse_every_way(t, prefix, reply), calls, reply);
  }
}

TEST(ResponseTemplate, EveryFamilyRoundTripsWrittenCalls) {
  for (auto format : {ToolCallFormat::kHermes, ToolCallFormat::kLlama3Json, ToolCallFormat::kMistral,
                      ToolCallFormat::kHarmony, ToolCallFormat::kDeepSeekR1, ToolCallFormat::kCommandR,
                      ToolCallFormat::kGemma4}) {
    const ToolCallSyntax& syntax = tool_call_syntax(format);
    const auto t = builtin_template(std::string(syntax.name), false);
    for (const Json& args : generated_arguments()) {
      std::vector<ToolCall> calls = {{"", "alpha", args.dump()}, {"", "beta_2", R"({"z":[1,{"y":null}]})"}};
      const std::string text = write_tool_calls(syntax, calls);
      const Json m = parse_every_way(t, "", text);
      expect_calls(m, {{"alpha", args}, {"beta_2", Json::parse(calls[1].arguments)}}, std::string(syntax.name) + ": " + text);
      EXPECT_FALSE(m.contains("content")) << syntax.name << ": " << m.dump();
    }
  }
}

TEST(ResponseTemplate, QwenXmlCallsRoundTrip) {
  const auto t = builtin_template("qwen3_xml", false);
  const std::string text =
      "<think>\nplan\n</think>\n\nChecking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nSan \"Fran\"\n"
      "</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=opts>\n{\"units\": [\"c\"]}\n</parameter>\n"
      "</function>\n</tool_call>";
  Streamed s;
  const Json m = parse_every_way(t, "<|im_start|>assistant\n", text, &s);
  expect_calls(m, {{"get_weather", {{"city", "San \"Fran\""}, {"days", 3}, {"opts", {{"units", {"c"}}}}}}}, text);
  EXPECT_EQ(m["thinking"], "plan");
  EXPECT_EQ(m["content"], "Checking.");
}

TEST(ResponseTemplate, ArgumentsStreamInPiecesConvertedToJson) {
  const auto t = builtin_template("gemma4", false);
  Streamed s;
  parse_every_way(t, "<|turn>model\n", "<|tool_call>call:f{city:<|\"|>Pa\"ris\n<|\"|>,n:[1,2]}<tool_call|>", &s);
  ASSERT_EQ(s.calls.size(), 1u);
  EXPECT_EQ(s.calls[0].second, R"({"city":"Pa\"ris\n","n":[1,2]})");
  EXPECT_GT(s.argument_pieces, 10);  // byte by byte: the arguments came as they were written
}

TEST(ResponseTemplate, AnAnchorMissingFromThePromptStillAnchorsTheReplyStart) {
  // llama3_json chosen for a ChatML prompt: the prompt has no Llama anchor, so it is read whole,
  // and the reply (not the prompt) is what `^` anchors to.
  const Json m = parse_every_way(builtin_template("llama3_json", false), "<|im_start|>user\nhi<|im_end|>\n",
                                 "{\"name\": \"add\", \"parameters\":  { \"a\"\n\t :58 ,\"b\":49}}");
  expect_calls(m, {{"add", {{"a", 58}, {"b", 49}}}}, m.dump());
}

TEST(ResponseTemplate, ReasoningForEveryFamily) {
  struct Case {
    const char* family;
    const char* prefix;
    const char* text;
  };
  for (const Case& c : {Case{"gemma4", "<|turn>model\n", "<|channel>thought\nweigh it<channel|>The answer.<turn|>"},
                        Case{"harmony", "<|start|>assistant",
                             "<|channel|>analysis<|message|>weigh it<|end|><|start|>assistant<|channel|>final<|message|>The answer.<|return|>"},
                        Case{"deepseek_r1", "<｜User｜>q<｜Assistant｜><think>\n", "weigh it\n</think>\n\nThe answer."},
                        Case{"command_r", "", "<|START_THINKING|>weigh it<|END_THINKING|><|START_RESPONSE|>The answer.<|END_RESPONSE|>"},
                        Case{"qwen3_xml", "<|im_start|>assistant\n", "<think>\nweigh it\n</think>\n\nThe answer."}}) {
    const Json m = parse_every_way(builtin_template(c.family, false), c.prefix, c.text);
    EXPECT_EQ(m.value("thinking", ""), "weigh it") << c.family << " " << m.dump();
    EXPECT_EQ(m.value("content", ""), "The answer.") << c.family << " " << m.dump();
  }
}

TEST(ResponseTemplate, RepliesThatDoNotFitAreContent) {
  for (const char* text : {"<|tool_call>call:f oops<tool_call|>", "<|tool_call>call:f{a:", "plain <|tool_call", "x{y:1}"}) {
    const Json m = parse_every_way(builtin_template("gemma4", false), "", text);
    if (std::string(text) == "<|tool_call>call:f{a:") {
      ASSERT_TRUE(m.contains("tool_calls")) << m.dump();  // its first delta was out: kept, closed
      continue;
    }
    EXPECT_FALSE(m.contains("tool_calls")) << text;
    EXPECT_EQ(m.value("content", ""), text);
  }
  // No implicit field (harmony): text outside every channel is content when nothing else matched.
  EXPECT_EQ(parse_every_way(builtin_template("harmony", false), "", "just text")["content"], "just text");
}

TEST(ResponseTemplate, MalformedTemplatesNameTheKey) {
  struct Case {
    const char* json;
    const char* where;
  };
  for (const Case& c : {
           Case{R"({"fields": {"content": {"clos": "x"}}})", "response_template.fields.content.clos"},
           Case{R"({"fields": {"t": {"open_pattern": "(a"}}})", "response_template.fields.t.open_pattern"},
           Case{R"({"fields": {"tool_calls": {"open": "<c>", "content": "json", "transform": {"function": {"name": "{nam}", "arguments": "{content}"}}}}})",
                "response_template.fields.tool_calls.transform.function.name"},
           Case{R"({"fields": {}})", "response_template.fields"},
           Case{R"({"fields": {"a": {"close": "x"}, "b": {"close": "y"}}})", "response_template.fields.b"},
           Case{R"({"defaults": 1, "fields": {"a": {}}})", "response_template.defaults"},
           Case{R"({"fields": {"a": {"open": "x", "content": "yaml"}}})", "response_template.fields.a.content"},
           Case{R"({"fields": {"a": {"open": "x", "content": "json", "content_args": {"string_delims": [["x"]]}}}})",
                "response_template.fields.a.content_args.string_delims[0]"},
       }) {
    try {
      ResponseTemplate::load(Json::parse(c.json), "response_template", "test");
      ADD_FAILURE() << "accepted " << c.json;
    } catch (const Error& e) {
      EXPECT_EQ(e.where(), c.where) << c.json << ": " << e.what();
    }
  }
}

TEST(ResponseTemplate, GemmaResponseSchemaAgreesWithTheBuiltin) {
  auto layout = load_reply_layout(kTemplates / "gemma-4.tokenizer_config.json");
  ASSERT_TRUE(layout && layout->schema);
  const std::string reply =
      "<|channel>thought\nhmm<channel|><|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>,n:2}<tool_call|>"
      "<|tool_call>call:g{}<tool_call|>";
  const Json from_schema = layout->schema->parse(reply);
  ResponseParser p(builtin_template("gemma4", false), "");
  p.feed(reply);
  p.finish();
  const Json from_template = p.message();
  EXPECT_EQ(Plain::parse(from_schema["tool_calls"].dump()), Plain::parse(from_template["tool_calls"].dump()))
      << from_schema.dump() << "\n" << from_template.dump();
  EXPECT_EQ(from_schema["thinking"], "hmm");
  EXPECT_EQ(layout->schema->parse("Hello there.<turn|>")["content"], "Hello there.");
}

TEST(ResponseTemplate, TemplateFromTokenizerConfig) {
  const fs::path dir = fs::temp_directory_path() / "ogai_response_template_test";
  fs::create_directories(dir);
  std::ofstream(dir / "tokenizer_config.json")
      << R"({"response_template": {"defaults": {"role": "assistant"}, "fields": {
             "thinking": {"open": "[T]", "close": "[/T]"},
             "tool_calls": {"open_pattern": "<call name=(?P<name>\\w+)>", "close": "</call>", "repeats": true,
                            "content": "json", "content_args": {"unquoted_keys": true},
                            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}},
             "content": {}}}})";
  auto layout = load_reply_layout(dir);
  ASSERT_TRUE(layout && layout->tmpl);
  const Json m = parse_every_way(layout->tmpl, "", "[T]a[/T]hi<call name=f>{x: [1]}</call>");
  EXPECT_EQ(m["thinking"], "a");
  EXPECT_EQ(m["content"], "hi");
  expect_calls(m, {{"f", {{"x", {1}}}}}, m.dump());
  fs::remove_all(dir);
}

TEST(ResponseTemplate, HostileRegexesAndLongRepliesStayBounded) {
  const auto t = ResponseTemplate::load(
      Json::parse(R"({"fields": {"x": {"open_pattern": "(a+)+b", "close": "c"}, "content": {}}})"), "rt", "test");
  const std::string text(5000, 'a');
  const auto start = std::chrono::steady_clock::now();
  ResponseParser p(t, "");
  for (std::size_t i = 0; i < text.size(); i += 100) p.feed(text.substr(i, 100));
  p.finish();
  EXPECT_EQ(p.reply().content, text);  // the step budget ran out: no match, never a hang
  std::string big;
  while (big.size() < (1 << 20)) big += "word <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"b\"}}</tool_call> ";
  ResponseParser q(builtin_template("hermes", false), "");
  for (std::size_t i = 0; i < big.size(); i += 7) q.feed(big.substr(i, 7));
  q.finish();
  EXPECT_GT(q.reply().tool_calls.size(), 10000u);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 20.0);  // a bound against quadratic behaviour, not a speed claim (bench/ has that)
}

TEST(ResponseTemplate, DetectedFromTheSharedTemplates) {
  EXPECT_EQ(detect_template_family(ChatTemplate::load(kTemplates / "gemma-4.chat_template.jinja").select({}).source()),
            "gemma4");
  EXPECT_EQ(detect_template_family(ChatTemplate::load(kTemplates / "qwen2.5.tokenizer_config.json").select({}).source()),
            "hermes");
  EXPECT_EQ(detect_template_family("{{ '<|channel|>' }}"), "harmony");
  EXPECT_EQ(detect_template_family("{{ '<function=' }}"), "qwen3_xml");
}

}  // namespace
}  // namespace ogai::chat::reply
