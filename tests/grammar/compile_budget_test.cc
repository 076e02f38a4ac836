// The compile budget (ogai::CompileBudgetScope, issue 28 finding 2): a wide-object schema stops
// compiling once its time is spent (the error names the limit) or its caller cancels; without a
// scope, or with a generous one, it compiles.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "ogai/error.h"
#include "ogai/options.h"

namespace ogai {
namespace {

ResponseFormat wide_object(int properties) {
  std::string schema = R"({"type":"object","properties":{)";
  for (int i = 0; i < properties; ++i) schema += (i ? ",\"p" : "\"p") + std::to_string(i) + R"(":{"type":"integer"})";
  return {ResponseFormat::Kind::kJsonSchema, schema + "}}", false};
}

// The budget is polled where rules are built and checked (grammar.cc), so the error comes at the
// first poll past the limit; the schema front end's own work before that (json_schema*.cc) is not
// polled yet, so no tight bound on the time is asserted here.
TEST(CompileBudget, StopsAWideSchemaAtItsTimeNamingTheLimit) {
  const ResponseFormat format = wide_object(3000);
  CompileBudgetScope scope({0.001, "--grammar-timeout", {}});
  try {
    check_response_format(format);
    FAIL() << "compiled within 1 ms";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("--grammar-timeout"), std::string::npos) << e.what();
  }
}

TEST(CompileBudget, StopsWhenCancelledAndScopesNest) {
  const ResponseFormat format = wide_object(5000);
  CompileBudgetScope outer({0, "", [] { return true; }});
  try {
    check_response_format(format);
    FAIL() << "not cancelled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCancelled);
  }
  {
    CompileBudgetScope inner({60, "--grammar-timeout", {}});  // the innermost applies
    EXPECT_NO_THROW(check_response_format(format));
  }
  EXPECT_THROW(check_response_format(format), Error);
}

TEST(CompileBudget, NoScopeNoLimit) { EXPECT_NO_THROW(check_response_format(wide_object(2000))); }

}  // namespace
}  // namespace ogai
