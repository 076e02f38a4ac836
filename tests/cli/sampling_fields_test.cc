// Every entry of ogai/sampling_fields.h reaches its member through each C++ front end: the CLI's
// flags (cli/model_flags) and the server's request fields (serve/parse_request, known_fields).
// Python's keywords are checked by tests/python/test_sampling_fields.py.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <variant>
#include <vector>

#include "cli/model_flags.h"
#include "ogai/sampling_fields.h"
#include "serve/common/api_request.h"
#include "serve/common/unknown_fields.h"

namespace ogai {
namespace {

// The member's value, as a double (nullopt when unset).
std::optional<double> value_of(const SamplingOptions& s, const SamplingField& field) {
  return std::visit(
      [&](auto member) -> std::optional<double> {
        if (!(s.*member)) return std::nullopt;
        return static_cast<double>(*(s.*member));
      },
      field.member);
}

TEST(SamplingFields, NamesAreUniqueAndFlagsSpelledFromThem) {
  std::set<std::string_view> names;
  for (const SamplingField& field : kSamplingFields) EXPECT_TRUE(names.insert(field.name).second) << field.name;
  const SamplingField top_p{"top_p", "", &SamplingOptions::top_p};
  const SamplingField penalty{"repetition_penalty", "", &SamplingOptions::repetition_penalty};
  EXPECT_EQ(top_p.flag(), "--top-p");
  EXPECT_EQ(penalty.flag(), "--repetition-penalty");
}

TEST(SamplingFields, EachIsACliFlagSettingItsMember) {
  for (const SamplingField& field : kSamplingFields) {
    CLI::App app;
    cli::SamplingFlags flags;
    cli::add_sampling_flags(app, flags);
    std::vector<std::string> args = {"ogai", field.flag(), "3"};
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    app.parse(static_cast<int>(argv.size()), argv.data());
    EXPECT_EQ(value_of(flags.options.sampling, field), 3.0) << field.flag();
    for (const SamplingField& other : kSamplingFields)
      if (other.name != field.name) {
        EXPECT_FALSE(value_of(flags.options.sampling, other)) << field.flag() << " set " << other.name;
      }
  }
}

TEST(SamplingFields, EachIsAKnownRequestFieldSettingItsMember) {
  for (const SamplingField& field : kSamplingFields) {
    const std::string name(field.name);
    serve::ApiRequest chat = serve::parse_chat_request(
        R"({"model": "m", "messages": [{"role": "user", "content": "hi"}], ")" + name + R"(": 3})");
    EXPECT_EQ(value_of(chat.options.sampling, field), 3.0) << name;
    EXPECT_TRUE(chat.unknown_fields.empty()) << name;
    serve::ApiRequest completion = serve::parse_completion_request(R"({"model": "m", "prompt": "hi", ")" + name + R"(": 3})");
    EXPECT_EQ(value_of(completion.options.sampling, field), 3.0) << name;
    EXPECT_TRUE(completion.unknown_fields.empty()) << name;
  }
}

TEST(SamplingFields, AWrongTypeNamesTheField) {
  for (const SamplingField& field : kSamplingFields) {
    const std::string name(field.name);
    try {
      serve::parse_completion_request(R"({"model": "m", "prompt": "hi", ")" + name + R"(": "x"})");
      ADD_FAILURE() << name << " accepted a string";
    } catch (const serve::ApiError& e) {
      EXPECT_EQ(e.param, name) << e.what();
    }
  }
}

}  // namespace
}  // namespace ogai
