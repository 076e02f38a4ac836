// SchemaCompiler: strings (lengths, pattern, format) and numbers (bounds).
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "base/error.h"
#include "grammar/regex.h"
#include "grammar/schema_compiler.h"

namespace ogai::grammar::schema {

std::optional<std::int64_t> SchemaCompiler::count(const Json& s, const char* key, const std::string& ptr) const {
  auto it = s.find(key);
  if (it == s.end()) return std::nullopt;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0)
    invalid(ptr + "/" + key, "expected a non-negative integer, got " + compact(*it));
  return it->get<std::int64_t>();
}

std::optional<Sequence> SchemaCompiler::string_schema(const Json& s, const std::string& ptr) {
  const auto min = count(s, "minLength", ptr), max = count(s, "maxLength", ptr);
  const bool has_pattern = s.contains("pattern"), has_format = s.contains("format");
  if ((min || max) + has_pattern + has_format > 1) unsupported(ptr, "combining 'pattern', 'format' and string lengths");
  if (has_pattern) {
    const Json& p = s.at("pattern");
    if (!p.is_string()) invalid(ptr + "/pattern", "expected a string");
    return j_.string_with_regex(p.get<std::string>(), /*search=*/true, where_ + "#" + ptr + "/pattern");
  }
  if (has_format) {
    const Json& f = s.at("format");
    if (!f.is_string()) invalid(ptr + "/format", "expected a string");
    auto seq = j_.string_with_format(f.get<std::string>(), "#" + ptr + "/format");
    if (!seq) unsupported(ptr + "/format", "format '" + f.get<std::string>() + "'");
    return *seq;
  }
  if (!min && !max) return Sequence{j_.string()};
  if (min && max && *max < *min) return std::nullopt;
  return j_.string_with_length(min.value_or(0), max.value_or(-1));
}

std::optional<double> SchemaCompiler::bound(const Json& s, const char* key, const std::string& ptr) const {
  auto it = s.find(key);
  if (it == s.end()) return std::nullopt;
  if (!it->is_number()) unsupported(ptr + "/" + key, fmt::format("'{}' that is not a number ({})", key, compact(*it)));
  const double v = it->get<double>();
  if (std::abs(v) > 9e15) unsupported(ptr + "/" + key, fmt::format("'{}' beyond +-9e15", key));
  return v;
}

std::optional<Sequence> SchemaCompiler::integer_schema(const Json& s, const std::string& ptr) {
  if (s.contains("multipleOf")) return multiple_schema(s, ptr, true);
  std::optional<std::int64_t> lo, hi;
  auto raise = [&](std::int64_t v) { lo = lo ? std::max(*lo, v) : v; };
  auto lower = [&](std::int64_t v) { hi = hi ? std::min(*hi, v) : v; };
  if (auto v = bound(s, "minimum", ptr)) raise(static_cast<std::int64_t>(std::ceil(*v)));
  if (auto v = bound(s, "exclusiveMinimum", ptr)) raise(static_cast<std::int64_t>(std::floor(*v)) + 1);
  if (auto v = bound(s, "maximum", ptr)) lower(static_cast<std::int64_t>(std::floor(*v)));
  if (auto v = bound(s, "exclusiveMaximum", ptr)) lower(static_cast<std::int64_t>(std::ceil(*v)) - 1);
  if (!lo && !hi) return Sequence{j_.integer()};
  Sequence out = j_.integer_range(lo, hi, "#" + ptr + "-range");
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<Sequence> SchemaCompiler::number_schema(const Json& s, const std::string& ptr) {
  if (s.contains("multipleOf")) return multiple_schema(s, ptr, false);
  std::optional<NumberBound> lo, hi;
  // A non-integer bound is narrowed to the integer inside it (minimum 0.5 -> 1, maximum 9.9 -> 9):
  // the grammar keeps to a subset, and states integer-valued bounds exactly.
  bool narrowed = false;
  auto integral = [&](const char* key, bool lower_side) -> std::optional<NumberBound> {
    auto v = bound(s, key, ptr);
    if (!v) return std::nullopt;
    const bool exclusive = std::string(key).rfind("exclusive", 0) == 0;
    if (std::floor(*v) == *v) return NumberBound{static_cast<std::int64_t>(*v), exclusive};
    narrowed = true;
    return NumberBound{static_cast<std::int64_t>(lower_side ? std::ceil(*v) : std::floor(*v)), false};
  };
  auto tighter_lo = [&](NumberBound b) {
    if (!lo || b.value > lo->value || (b.value == lo->value && b.exclusive)) lo = b;
  };
  auto tighter_hi = [&](NumberBound b) {
    if (!hi || b.value < hi->value || (b.value == hi->value && b.exclusive)) hi = b;
  };
  if (auto v = integral("minimum", true)) tighter_lo(*v);
  if (auto v = integral("exclusiveMinimum", true)) tighter_lo(*v);
  if (auto v = integral("maximum", false)) tighter_hi(*v);
  if (auto v = integral("exclusiveMaximum", false)) tighter_hi(*v);
  if (!lo && !hi) return Sequence{j_.number()};
  if (lo && hi && (lo->value > hi->value || (lo->value == hi->value && (lo->exclusive || hi->exclusive)))) {
    if (narrowed) return multiple_schema(s, ptr, false);  // no integer inside: decimals, enumerated
    return std::nullopt;
  }
  return j_.number_range(lo, hi, "#" + ptr + "-range");
}
namespace {

// A decimal step p * 10^-k (p > 0) read from a JSON number's shortest text ("0.01", "1e-08", "3").
bool decimal_step(const std::string& text, std::uint64_t& p, int& k) {
  std::string digits;
  int exp = 0, frac = 0;
  bool dot = false;
  std::size_t i = 0;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    if (text[i] == '.')
      dot = true;
    else if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      digits += text[i];
      frac += dot;
    } else {
      return false;
    }
  }
  if (i < text.size()) exp = std::stoi(text.substr(i + 1));
  while (digits.size() > 1 && digits[0] == '0') digits.erase(0, 1);
  if (digits.empty() || digits.size() > 15) return false;
  p = std::stoull(digits);
  k = frac - exp;
  if (p == 0) return false;
  while (k > 0 && p % 10 == 0) p /= 10, --k;
  while (k < 0) {
    if (p > 100'000'000'000'000ull) return false;
    p *= 10, ++k;
  }
  return k <= 15;
}

// D * 10^-k as the shortest decimal text.
std::string decimal_text(std::int64_t d, int k) {
  const bool neg = d < 0;
  std::string digits = std::to_string(neg ? -d : d);
  if (k > 0) {
    if (static_cast<int>(digits.size()) <= k) digits.insert(0, static_cast<std::size_t>(k) + 1 - digits.size(), '0');
    digits.insert(digits.size() - static_cast<std::size_t>(k), ".");
    while (digits.back() == '0') digits.pop_back();
    if (digits.back() == '.') digits.pop_back();
  }
  return (neg ? "-" : "") + digits;
}

}  // namespace

// Multiples of multipleOf (or, without it, decimals between close non-integer bounds). An integer
// multipleOf without bounds is exact (a residue automaton over the digits); otherwise at most
// kMaxMultiples values within the bounds are enumerated, each checked the way validators check
// (the double value within the bounds, value / multipleOf integral in doubles too): a subset.
std::optional<Sequence> SchemaCompiler::multiple_schema(const Json& s, const std::string& ptr, bool integer) {
  constexpr std::int64_t kMaxMultiples = 2048;
  const Json step_json = s.value("multipleOf", Json(0.1));
  const bool given = s.contains("multipleOf");
  if (!step_json.is_number() || step_json.get<double>() <= 0)
    invalid(ptr + "/multipleOf", "expected a number above 0, got " + compact(step_json));
  std::uint64_t p = 0;
  int k = 0;
  if (!decimal_step(compact(step_json), p, k))
    unsupported(ptr + "/multipleOf",
                "'multipleOf' " + compact(step_json) + " (ogai takes decimals of at most 15 digits)");
  if (!given) {  // between non-integer bounds: the finest decimals of the bounds
    p = 1;
    for (const char* key : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
      std::uint64_t bp = 0;
      int bk = 0;
      if (s.contains(key) && decimal_step(compact(s.at(key)), bp, bk)) k = std::max(k, bk);
    }
  }
  auto lo = bound(s, "minimum", ptr), hi = bound(s, "maximum", ptr);
  auto xlo = bound(s, "exclusiveMinimum", ptr), xhi = bound(s, "exclusiveMaximum", ptr);
  if (!lo && !hi && !xlo && !xhi && k == 0 && p <= 10000) return j_.multiples(p, "#" + ptr + "/multipleOf");
  const double scale = std::pow(10.0, k);
  const double step = static_cast<double>(p);
  std::optional<double> from, to;  // in units of the step
  if (lo || xlo) from = std::max(lo ? *lo : -1e300, xlo ? *xlo : -1e300) * scale / step;
  if (hi || xhi) to = std::min(hi ? *hi : 1e300, xhi ? *xhi : 1e300) * scale / step;
  if ((from && std::abs(*from) > 1e15) || (to && std::abs(*to) > 1e15))
    unsupported(ptr + "/multipleOf", "bounds more than 1e15 steps of 'multipleOf' from zero");
  std::int64_t first = from ? static_cast<std::int64_t>(std::floor(*from)) - 1
                       : to ? static_cast<std::int64_t>(std::ceil(*to)) - kMaxMultiples
                            : -kMaxMultiples / 2;
  const std::int64_t last =
      to ? std::min<std::int64_t>(static_cast<std::int64_t>(std::ceil(*to)) + 1, first + kMaxMultiples)
         : first + kMaxMultiples;
  const double m = step_json.get<double>();
  std::vector<std::string> texts;
  for (std::int64_t n = first; n <= last; ++n) {
    const std::string text = decimal_text(n * static_cast<std::int64_t>(p), k);
    const double v = std::strtod(text.c_str(), nullptr);
    if ((lo && v < *lo) || (hi && v > *hi) || (xlo && v <= *xlo) || (xhi && v >= *xhi)) continue;
    if (integer && std::floor(v) != v) continue;
    if (given && step_json.is_number_float() && std::floor(v / m) != v / m) continue;  // as validators divide
    if (given && !step_json.is_number_float() && std::fmod(v, m) != 0) continue;
    texts.push_back(text);
  }
  if (texts.empty()) {
    if (given) return std::nullopt;
    unsupported(ptr, "non-integer bounds with no decimal of their precision between them");
  }
  return j_.literal_set(std::move(texts), "#" + ptr + "/multipleOf");
}

}  // namespace ogai::grammar::schema
