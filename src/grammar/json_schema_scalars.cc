// SchemaCompiler: strings (lengths, pattern, format) and numbers (bounds).
#include <fmt/format.h>

#include <cmath>

#include "grammar/regex.h"
#include "base/error.h"
#include "grammar/schema_compiler.h"

namespace ogai::grammar::schema {

std::optional<std::int64_t> SchemaCompiler::count(const Json& s, const char* key, const std::string& ptr) const {
  auto it = s.find(key);
  if (it == s.end()) return std::nullopt;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0)
    invalid(ptr + "/" + key, "expected a non-negative integer, got " + compact(*it));
  return it->get<std::int64_t>();
}

Sequence SchemaCompiler::string_schema(const Json& s, const std::string& ptr) {
  const auto min = count(s, "minLength", ptr), max = count(s, "maxLength", ptr);
  const bool has_pattern = s.contains("pattern"), has_format = s.contains("format");
  if ((min || max) + has_pattern + has_format > 1)
    unsupported(ptr, "combining 'pattern', 'format' and string lengths");
  if (has_pattern) {
    const Json& p = s.at("pattern");
    if (!p.is_string()) invalid(ptr + "/pattern", "expected a string");
    Sequence out = b_.literal("\"");
    GrammarBuilder::append(out, compile_regex(b_, p.get<std::string>(), Spelling::kJsonString, RegexAnchoring::kSearch,
                                              where_ + "#" + ptr + "/pattern"));
    GrammarBuilder::append(out, b_.literal("\""));
    return out;
  }
  if (has_format) {
    const Json& f = s.at("format");
    if (!f.is_string()) invalid(ptr + "/format", "expected a string");
    auto seq = j_.string_with_format(f.get<std::string>(), "#" + ptr + "/format");
    if (!seq)
      unsupported(ptr + "/format", "format '" + f.get<std::string>() + "' (supported: date, time, date-time, uuid, email)");
    return *seq;
  }
  if (!min && !max) return {j_.string()};
  if (min && max && *max < *min) invalid(ptr, "maxLength is below minLength");
  Sequence out = b_.literal("\"");
  GrammarBuilder::append(out, j_.string_with_length(min.value_or(0), max.value_or(-1)));
  return out;
}

std::optional<double> SchemaCompiler::bound(const Json& s, const char* key, const std::string& ptr) const {
  auto it = s.find(key);
  if (it == s.end()) return std::nullopt;
  if (!it->is_number()) unsupported(ptr + "/" + key, fmt::format("'{}' that is not a number ({})", key, compact(*it)));
  const double v = it->get<double>();
  if (std::abs(v) > 9e15) unsupported(ptr + "/" + key, fmt::format("'{}' beyond +-9e15", key));
  return v;
}

Sequence SchemaCompiler::integer_schema(const Json& s, const std::string& ptr) {
  std::optional<std::int64_t> lo, hi;
  auto raise = [&](std::int64_t v) { lo = lo ? std::max(*lo, v) : v; };
  auto lower = [&](std::int64_t v) { hi = hi ? std::min(*hi, v) : v; };
  if (auto v = bound(s, "minimum", ptr)) raise(static_cast<std::int64_t>(std::ceil(*v)));
  if (auto v = bound(s, "exclusiveMinimum", ptr)) raise(static_cast<std::int64_t>(std::floor(*v)) + 1);
  if (auto v = bound(s, "maximum", ptr)) lower(static_cast<std::int64_t>(std::floor(*v)));
  if (auto v = bound(s, "exclusiveMaximum", ptr)) lower(static_cast<std::int64_t>(std::ceil(*v)) - 1);
  if (!lo && !hi) return {j_.integer()};
  Sequence out = j_.integer_range(lo, hi, "#" + ptr + "-range");
  if (out.empty()) invalid(ptr, "no integer satisfies the bounds");
  return out;
}

Sequence SchemaCompiler::number_schema(const Json& s, const std::string& ptr) {
  std::optional<NumberBound> lo, hi;
  auto integral = [&](const char* key) -> std::optional<std::int64_t> {
    auto v = bound(s, key, ptr);
    if (!v) return std::nullopt;
    if (std::floor(*v) != *v)
      unsupported(ptr + "/" + key, fmt::format("'{}' {} on a number (ogai enforces integer-valued bounds on numbers)", key, *v));
    return static_cast<std::int64_t>(*v);
  };
  auto tighter_lo = [&](NumberBound b) {
    if (!lo || b.value > lo->value || (b.value == lo->value && b.exclusive)) lo = b;
  };
  auto tighter_hi = [&](NumberBound b) {
    if (!hi || b.value < hi->value || (b.value == hi->value && b.exclusive)) hi = b;
  };
  if (auto v = integral("minimum")) tighter_lo({*v, false});
  if (auto v = integral("exclusiveMinimum")) tighter_lo({*v, true});
  if (auto v = integral("maximum")) tighter_hi({*v, false});
  if (auto v = integral("exclusiveMaximum")) tighter_hi({*v, true});
  if (!lo && !hi) return {j_.number()};
  if (lo && hi && (lo->value > hi->value || (lo->value == hi->value && (lo->exclusive || hi->exclusive))))
    invalid(ptr, "no number satisfies the bounds");
  return j_.number_range(lo, hi, "#" + ptr + "-range");
}
}  // namespace ogai::grammar::schema
