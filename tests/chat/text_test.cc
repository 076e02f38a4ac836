// Number and string formatting: JavaScript's Number#toString, the float form {{ }} prints,
// JSON escaping with ensure_ascii, and Python's repr for the Jinja-only paths.
#include <gtest/gtest.h>

#include <cmath>

#include "chat/jinja/text.h"

namespace ogai::chat::jinja {
namespace {

std::string js(double d) {
  std::string s;
  append_js_number(s, d);
  return s;
}
std::string flt(double d) {
  std::string s;
  append_float_text(s, d);
  return s;
}
std::string json(std::string_view v, bool ascii) {
  std::string s;
  append_json_string(s, v, ascii);
  return s;
}
std::string repr(const Value& v) {
  std::string s;
  append_python_repr(s, v);
  return s;
}

TEST(Text, JavaScriptNumbers) {
  EXPECT_EQ(js(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(js(1e21), "1e+21");
  EXPECT_EQ(js(1e20), "100000000000000000000");
  EXPECT_EQ(js(1.5e-7), "1.5e-7");
  EXPECT_EQ(js(0.000001), "0.000001");
  EXPECT_EQ(js(-2.5), "-2.5");
  EXPECT_EQ(js(-0.0), "0");
  EXPECT_EQ(js(NAN), "NaN");
  EXPECT_EQ(js(-INFINITY), "-Infinity");
}

TEST(Text, FloatsPrintWithAFraction) {
  EXPECT_EQ(flt(2), "2.0");
  EXPECT_EQ(flt(-0.0), "-0.0");
  EXPECT_EQ(flt(1e20), "100000000000000000000.0");
  EXPECT_EQ(flt(1e21), "1e+21");
  EXPECT_EQ(flt(0.5), "0.5");
}

TEST(Text, JsonStrings) {
  EXPECT_EQ(json("a\"b\\c\n\t\x01/", false), R"("a\"b\\c\n\t\u0001/")");
  EXPECT_EQ(json("é😀\x7f", false), "\"é😀\x7f\"");
  EXPECT_EQ(json("é😀\x7f", true), R"("\u00e9\ud83d\ude00\u007f")");
}

TEST(Text, PythonRepr) {
  EXPECT_EQ(repr(Value::string("it's")), "\"it's\"");
  EXPECT_EQ(repr(Value::string("say \"hi\" it's")), R"('say "hi" it\'s')");
  EXPECT_EQ(repr(Value::string("a\nb\x01\u00e9")), "'a\\nb\\x01\u00e9'");
  EXPECT_EQ(repr(Value::floating(1e16)), "1e+16");
  EXPECT_EQ(repr(Value::floating(1e-5)), "1e-05");
  EXPECT_EQ(repr(Value::floating(0.0001)), "0.0001");
  EXPECT_EQ(repr(Value::floating(3)), "3.0");
  EXPECT_EQ(repr(Value::boolean(true)), "True");
  EXPECT_EQ(repr(Value::none()), "None");
}

}  // namespace
}  // namespace ogai::chat::jinja
