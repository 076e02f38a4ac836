// Forced calls on tiny-e2b (context raised to 2048) with Gemma-4's real chat template: the reply is written in
// Gemma-4's own argument dialect (bare sorted keys, <|"|> strings, compact), its parsed arguments are valid against the
// tool's schema, and rendering the parsed calls back through the template gives the generated text again (Gemma call ->
// JSON arguments -> template -> same text). Named, required and parallel; greedy and sampled.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "chat/reply/reply_layout.h"
#include "generate/kept_specials.h"
#include "ogai/ogai.h"
#include "tokenizer/tokenizer.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
const fs::path kTiny = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b";
const fs::path kGemmaTemplate = fs::path(OGAI_SHARED_DIR) / "chat_templates/gemma-4.chat_template.jinja";

// Strings are bounded (a random model rarely ends a free string) and numbers are integers from 1
// (a number such as 1.50 would be rendered back as 1.5).
const Tool kWeather{"get_weather", "The weather in a city", R"({"type":"object","properties":{
  "location":{"type":"string","maxLength":10},
  "unit":{"enum":["celsius","fahrenheit"]},
  "days":{"type":"integer","minimum":1,"maximum":7},
  "Options":{"type":"object","properties":{"metric":{"type":"boolean"},
    "tags":{"type":"array","items":{"type":"string","maxLength":4},"maxItems":2}},"additionalProperties":false}},
  "required":["location","unit"],"additionalProperties":false})"};
const Tool kAdd{"add", "adds", R"({"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":99},
  "b":{"type":"integer","minimum":1,"maximum":99}},"required":["a","b"],"additionalProperties":false})"};

fs::path gemma_package() {
  const fs::path dir = fs::temp_directory_path() / ("ogai_gemma_forced_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(kTiny, dir);
  std::ifstream in(kGemmaTemplate);
  std::stringstream source;
  source << in.rdbuf();
  std::ofstream(dir / "chat_template.jinja") << source.str();
  // The template's declarations do not fit in 512 positions; the graph computes positions (and
  // the weights are random), so the declared context is raised as tests/serve/tool_package.cjs does.
  std::ifstream meta_in(dir / "inference_metadata.yaml");
  std::stringstream meta;
  meta << meta_in.rdbuf();
  meta_in.close();
  std::string yaml = meta.str();
  const std::string from = "max_sequence_length: 512";
  EXPECT_NE(yaml.find(from), std::string::npos);
  if (yaml.find(from) != std::string::npos) yaml.replace(yaml.find(from), from.size(), "max_sequence_length: 2048");
  std::ofstream(dir / "inference_metadata.yaml") << yaml;
  return dir;
}

// The checks python3-jsonschema would make, written out for the two schemas above.
void expect_valid(const ToolCall& call) {
  const Json a = Json::parse(call.arguments);
  ASSERT_TRUE(a.is_object()) << call.arguments;
  if (call.name == "add") {
    ASSERT_EQ(a.size(), 2u) << call.arguments;
    for (const char* k : {"a", "b"}) {
      ASSERT_TRUE(a.contains(k) && a[k].is_number_integer()) << call.arguments;
      EXPECT_TRUE(a[k].get<int>() >= 1 && a[k].get<int>() <= 99) << call.arguments;
    }
    return;
  }
  ASSERT_EQ(call.name, "get_weather");
  for (const auto& [k, v] : a.items()) {
    if (k == "location") {
      EXPECT_TRUE(v.is_string());
    } else if (k == "unit") {
      EXPECT_TRUE(v == "celsius" || v == "fahrenheit") << v;
    } else if (k == "days") {
      EXPECT_TRUE(v.is_number_integer() && v.get<int>() >= 1 && v.get<int>() <= 7) << v;
    } else if (k == "Options") {
      ASSERT_TRUE(v.is_object());
      for (const auto& [ok, ov] : v.items()) {
        if (ok == "metric") {
          EXPECT_TRUE(ov.is_boolean());
        } else if (ok == "tags") {
          EXPECT_TRUE(ov.is_array() && ov.size() <= 2) << ov;
        } else {
          ADD_FAILURE() << "unexpected Options key " << ok;
        }
      }
    } else {
      ADD_FAILURE() << "unexpected key " << k;
    }
  }
  EXPECT_TRUE(a.contains("location") && a.contains("unit")) << call.arguments;
}

struct Forced {
  std::string raw;
  ChatReply reply;
};

Forced force(const Model& m, const ChatOptions& o, std::optional<std::uint64_t> seed) {
  const std::vector<ChatMessage> messages = {{"user", "Weather in Paris?"}};
  ChatPrompt p = m.prepare_chat(messages, o);
  EXPECT_TRUE(p.constraint.has_value());
  GenerationOptions g;
  g.response_format = p.constraint;
  g.add_special_tokens = false;
  g.max_new_tokens = 300;
  g.sampling.temperature = seed ? 1.0f : 0.0f;
  g.sampling.seed = seed;
  GenerationResult r = m.generate(p.text, g);
  EXPECT_EQ(r.finish_reason, FinishReason::kEos) << r.text;
  return {r.text, parse_chat_reply(p, r.text)};
}

// The raw reply is Gemma-4's: each call <|tool_call>call:NAME{...}<tool_call|>, concatenated,
// no JSON quoting; rendering the parsed calls through the template writes the same text.
void expect_gemma_dialect(const Model& m, const Forced& f) {
  ASSERT_FALSE(f.reply.tool_calls.empty()) << f.raw;
  EXPECT_EQ(f.reply.content, "") << f.raw;
  EXPECT_EQ(f.raw.rfind("<|tool_call>call:", 0), 0u) << f.raw;
  EXPECT_EQ(f.raw.find('"' + std::string("location")), std::string::npos) << f.raw;  // no quoted keys
  EXPECT_EQ(f.raw.find("\": "), std::string::npos) << f.raw;
  for (const ToolCall& call : f.reply.tool_calls) expect_valid(call);
  const std::vector<ChatMessage> turn = {{"user", "Weather in Paris?"}, {"assistant", "", f.reply.tool_calls}};
  const std::string rendered = m.render_chat(turn, false);
  EXPECT_NE(rendered.find("<turn|>\n<|turn>model\n" + f.raw), std::string::npos)
      << "generated: " << f.raw << "\nrendered: " << rendered;
}

class GemmaForcedCalls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pkg_ = gemma_package();
    model_ = Model::load(pkg_);
  }
  static void TearDownTestSuite() {
    model_.reset();
    fs::remove_all(pkg_);
  }
  static inline fs::path pkg_;
  static inline std::shared_ptr<const Model> model_;
};

TEST_F(GemmaForcedCalls, NamedCallGreedyAndSampled) {
  ChatOptions o;
  o.tools = {kWeather, kAdd};
  o.tool_choice = {ToolChoice::Mode::kFunction, "get_weather"};
  ChatPrompt p = model_->prepare_chat(std::vector<ChatMessage>{{"user", "x"}}, o);
  ASSERT_TRUE(p.constraint.has_value());
  EXPECT_NE(p.constraint->text.find("\"arguments_dialect\""), std::string::npos) << p.constraint->text;
  for (std::optional<std::uint64_t> seed : {std::optional<std::uint64_t>(), std::optional<std::uint64_t>(1),
                                            std::optional<std::uint64_t>(2), std::optional<std::uint64_t>(3)}) {
    Forced f = force(*model_, o, seed);
    ASSERT_EQ(f.reply.tool_calls.size(), 1u) << f.raw;
    EXPECT_EQ(f.reply.tool_calls[0].name, "get_weather");
    expect_gemma_dialect(*model_, f);
  }
}

TEST_F(GemmaForcedCalls, RequiredAndParallel) {
  ChatOptions o;
  o.tools = {kWeather, kAdd};
  o.tool_choice.mode = ToolChoice::Mode::kRequired;
  for (bool parallel : {false, true}) {
    o.parallel_tool_calls = parallel;
    for (std::uint64_t seed : {11u, 12u, 13u}) {
      Forced f = force(*model_, o, seed);
      if (!parallel) {
        EXPECT_EQ(f.reply.tool_calls.size(), 1u) << f.raw;
      }
      EXPECT_LE(f.reply.tool_calls.size(), 16u) << f.raw;
      expect_gemma_dialect(*model_, f);
    }
  }
  // A parallel reply may hold several calls, concatenated with nothing between them.
  o.parallel_tool_calls = true;
  ChatPrompt p = model_->prepare_chat(std::vector<ChatMessage>{{"user", "x"}}, o);
  const std::string two = "<|tool_call>call:add{a:1,b:2}<tool_call|><|tool_call>call:add{a:3,b:4}<tool_call|>";
  ChatReply r = parse_chat_reply(p, two);
  ASSERT_EQ(r.tool_calls.size(), 2u);
  EXPECT_EQ(r.tool_calls[1].arguments, R"({"a":3,"b":4})");
}

// Gemma-4's real tokenizer holds its reply markers as special tokens. Here tiny-e2b's five
// highest BPE ids become <|tool_call>, <tool_call|>, <|"|>, <|channel>, <channel|> (special added
// tokens; the merges that made or used those ids dropped), as in the real vocabulary.
constexpr const char* kMarkers[] = {"<|tool_call>", "<tool_call|>", "<|\"|>", "<|channel>", "<channel|>"};

std::vector<std::int32_t> make_markers_special(const fs::path& dir) {
  std::ifstream in(dir / "tokenizer.json");
  Json tok = Json::parse(in);
  in.close();
  Json& vocab = tok["model"]["vocab"];
  std::vector<std::pair<std::int32_t, std::string>> by_id;
  for (const auto& [text, id] : vocab.items()) by_id.emplace_back(id.get<std::int32_t>(), text);
  std::sort(by_id.rbegin(), by_id.rend());
  std::vector<std::string> victims;
  std::vector<std::int32_t> ids;
  for (std::size_t i = 0; i < std::size(kMarkers); ++i) {
    victims.push_back(by_id[i].second);
    ids.push_back(by_id[i].first);
    vocab.erase(by_id[i].second);
    tok["added_tokens"].push_back({{"id", by_id[i].first},
                                   {"content", kMarkers[i]},
                                   {"single_word", false},
                                   {"lstrip", false},
                                   {"rstrip", false},
                                   {"normalized", false},
                                   {"special", true}});
  }
  Json merges = Json::array();
  for (const auto& m : tok["model"]["merges"]) {
    const std::string text = m.get<std::string>();
    const std::string a = text.substr(0, text.find(' ')), b = text.substr(text.find(' ') + 1);
    const bool touches = std::any_of(victims.begin(), victims.end(),
                                     [&](const std::string& v) { return v == a || v == b || v == a + b; });
    if (!touches) merges.push_back(m);
  }
  tok["model"]["merges"] = merges;
  std::ofstream(dir / "tokenizer.json") << tok.dump();
  return ids;
}

// With the markers special: a forced call may write them as the special tokens the model was
// trained on (the grammar's vocabulary spells them for kToolCalls formats; a bias makes this
// random model choose them), and the generated text keeps them, so the reply parses into the
// call. Before: the grammar never allowed a special token and the text stream dropped them.
TEST(GemmaMarkerTokens, ForcedCallsWriteAndKeepSpecialMarkers) {
  const fs::path dir = gemma_package();
  const std::vector<std::int32_t> ids = make_markers_special(dir);
  auto model = Model::load(dir);
  ChatOptions o;
  o.tools = {kAdd};
  o.tool_choice = {ToolChoice::Mode::kFunction, "add"};
  ChatPrompt p = model->prepare_chat(std::vector<ChatMessage>{{"user", "x"}}, o);
  ASSERT_TRUE(p.constraint.has_value());
  GenerationOptions g;
  g.response_format = p.constraint;
  g.add_special_tokens = false;
  g.max_new_tokens = 100;
  g.sampling.temperature = 0.0f;
  for (std::int32_t id : ids) g.sampling.logit_bias[id] = 50.0f;
  GenerationResult r = model->generate(p.text, g);
  EXPECT_EQ(r.finish_reason, FinishReason::kEos) << r.text;
  for (std::size_t i : {0, 1})  // <|tool_call>, <tool_call|>; add's arguments are integers (no <|"|>)
    EXPECT_NE(std::find(r.ids.begin(), r.ids.end(), ids[i]), r.ids.end()) << kMarkers[i] << " " << r.text;
  EXPECT_EQ(r.text.rfind("<|tool_call>call:add{", 0), 0u) << r.text;
  ChatReply reply = parse_chat_reply(p, r.text);
  ASSERT_EQ(reply.tool_calls.size(), 1u) << r.text;
  expect_valid(reply.tool_calls[0]);
  // A plain structured request never produces a special token, bias or not.
  GenerationOptions plain = g;
  plain.response_format = ResponseFormat{ResponseFormat::Kind::kJsonObject, "", true};
  GenerationResult j = model->generate(p.text, plain);
  for (std::int32_t id : ids) EXPECT_EQ(std::find(j.ids.begin(), j.ids.end(), id), j.ids.end()) << j.text;
  // The thinking channel's markers stay in the text too, so reasoning is parsed out of it.
  GenerationOptions think;
  think.add_special_tokens = false;
  think.max_new_tokens = 4;
  think.ignore_eos = true;
  think.sampling.temperature = 0.0f;
  think.sampling.logit_bias[ids[3]] = 100.0f;
  GenerationResult t = model->generate(p.text, think);
  EXPECT_EQ(t.text.rfind("<|channel><|channel>", 0), 0u) << t.text;
  model.reset();
  fs::remove_all(dir);
}

// The markers kept from each source of a Gemma-4 reply layout: the built-in template (literal and
// regex markers) and the response_schema Gemma-4's tokenizer_config.json ships (escaped x-regex,
// the gemma4-tool-call parser's delimiters); never the EOS, never an unrelated special token.
TEST(GemmaMarkerTokens, KeptFromEveryLayoutSource) {
  const fs::path dir = gemma_package();
  std::vector<std::int32_t> ids = make_markers_special(dir);
  std::sort(ids.begin(), ids.end());
  const auto tok = tokenizer::Tokenizer::load(dir / "tokenizer.json");
  const std::vector<TokenId> eos = {*tok.token_to_id("<eos>")};
  auto schema =
      chat::reply::load_reply_layout(fs::path(OGAI_SHARED_DIR) / "chat_templates/gemma-4.tokenizer_config.json");
  ASSERT_TRUE(schema && schema->schema);
  EXPECT_EQ(generate::kept_specials(tok, chat::reply::reply_marker_sources(*schema), eos), ids);
  const ReplyLayout builtin = chat::reply::builtin_layout("", "gemma4");
  EXPECT_EQ(generate::kept_specials(tok, chat::reply::reply_marker_sources(builtin), eos), ids);
  const ReplyLayout hermes = chat::reply::builtin_layout("", "hermes");
  EXPECT_TRUE(generate::kept_specials(tok, chat::reply::reply_marker_sources(hermes), eos).empty());
  // A marker that is also an end id stays out (EOS ends the reply; its text is never emitted).
  const std::vector<TokenId> ends = {eos[0], ids[0]};
  EXPECT_EQ(generate::kept_specials(tok, chat::reply::reply_marker_sources(builtin), ends).size(), ids.size() - 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ogai
