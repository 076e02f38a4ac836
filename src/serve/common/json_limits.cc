#include "serve/common/json_limits.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/cancel.h"
#include "base/json_ordered.h"
#include "serve/common/api_error.h"
#include "serve/common/json_fields.h"

namespace ogai::serve {
namespace {

// Counts as it goes and throws at the first limit; remembers the top-level key it is under. With
// `build`, it also builds the DOM (a limit is checked before the value it refuses is placed).
class LimitCheck : public nlohmann::json_sax<RequestJson> {
 public:
  LimitCheck(const JsonLimits& limits, bool build, std::span<const GrammarPath> grammar)
      : limits_(limits), build_(build), grammar_(limits.max_grammar_bytes == 0 ? std::span<const GrammarPath>() : grammar),
        grammar_sums_(grammar_.size(), 0) {}
  RequestJson take() { return dom_.take(); }
  const std::string& syntax_error() const { return syntax_error_; }

  bool null() override { return value() && grammar_scalar(4, 4) && put(RequestJson(nullptr)); }
  bool boolean(bool v) override { return value() && grammar_scalar(v ? 4 : 5, 1) && put(RequestJson(v)); }
  bool number_integer(number_integer_t v) override { return value() && grammar_scalar(1, 1) && put(RequestJson(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value() && grammar_scalar(1, 1) && put(RequestJson(v)); }
  bool number_float(number_float_t v, const string_t&) override {
    return value() && grammar_scalar(1, 1) && put(RequestJson(v));
  }
  bool string(string_t& s) override {
    count_bytes(s.size());
    return value() && grammar_scalar(s.size() + 2, s.size()) && put(RequestJson(std::move(s)));
  }
  bool binary(binary_t&) override { return value() && put(RequestJson(nullptr)); }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    check_cancelled("the request body's parse");  // a client that left stops the parse (base/cancel.h)
    if (depth_ == 1) {
      field_ = k;
      budget_ = budget_of(k);
      field_bytes_ = 0;
    } else {
      count_bytes(k.size());
    }
    if (depth_ <= kPathDepth && !grammar_.empty()) path_[depth_ - 1] = k;
    if (group_ >= 0) grammar_add(static_cast<std::size_t>(group_), k.size() + 3);  // "key":
    if (build_) dom_.key(std::move(k));
    return true;
  }
  bool parse_error(std::size_t, const std::string& token, const nlohmann::json::exception& e) override {
    constexpr int kNumberOverflow = 406;  // nlohmann's out_of_range.406: a number beyond double
    if (e.id == kNumberOverflow)
      refuse(fmt::format("{} is out of the range of a JSON number (a double)", preview(token)));
    syntax_error_ = e.what();
    return false;
  }

 private:
  const FieldBudget* budget_of(const std::string& field) const {
    for (const FieldBudget& b : limits_.fields)
      if (b.field == field) return &b;
    return nullptr;
  }
  void count_bytes(std::size_t n) {
    if (depth_ < 1 || budget_ == nullptr || budget_->max_bytes == 0) return;
    field_bytes_ += n;
    if (field_bytes_ > budget_->max_bytes)
      refuse(fmt::format("more than {} bytes of text, the server's limit{}", budget_->max_bytes,
                         named(budget_->bytes_limit)));
  }
  static std::string named(const std::string& limit) { return limit.empty() ? "" : " (" + limit + ")"; }
  bool value() {
    check_cancelled("the request body's parse");
    if (depth_ == 2) {  // an item of the field's own array or object
      ++field_items_;
      if (budget_ != nullptr && budget_->max_items != 0 && field_items_ > budget_->max_items)
        refuse(fmt::format("more than {} items, the server's limit{}", budget_->max_items,
                           named(budget_->items_limit)));
    }
    if (++values_ > limits_.max_values)
      refuse(fmt::format("more than {} JSON values in the request", limits_.max_values));
    return true;
  }
  bool open(bool array) {
    value();
    if (depth_ == 1) {
      field_array_ = array;
      field_items_ = 0;
    }
    const int starts = group_ < 0 ? grammar_match(depth_) : -1;
    if (++depth_ > limits_.max_depth)
      refuse(fmt::format("arrays and objects are nested more than {} deep{}", limits_.max_depth, field_shape()));
    if (++containers_ > limits_.max_containers)
      refuse(fmt::format("more than {} JSON arrays and objects in the request", limits_.max_containers));
    if (starts >= 0) {
      group_ = starts;
      group_depth_ = depth_;
    }
    // The value's own bracket pair; a container inside one also its comma (or its opening
    // bracket's other half): 1 a container plus 1 an element never exceeds the dump.
    if (group_ >= 0) grammar_add(static_cast<std::size_t>(group_), starts >= 0 ? 1 : 2);
    if (depth_ <= kPathDepth && !grammar_.empty()) path_[depth_ - 1] = array ? "*" : "";
    if (build_) dom_.open(array);
    return true;
  }
  bool close() {
    if (group_ >= 0 && depth_ == group_depth_) group_ = -1;  // the grammar value ends
    if (--depth_ == 1) {  // back at the request object's level
      field_.clear();
      budget_ = nullptr;
    }
    if (build_) dom_.close();
    return true;
  }
  bool put(RequestJson v) {
    if (build_) dom_.value(std::move(v));
    return true;
  }
  // " (in an array of 1 items)": what the field holds, as json_preview() describes containers.
  std::string field_shape() const {
    if (field_.empty()) return "";
    return fmt::format(" (in {} of {} {})", field_array_ ? "an array" : "an object", field_items_,
                       field_array_ ? "items" : "keys");
  }
  static std::string preview(const std::string& token) {
    constexpr std::size_t kMax = 40;
    return token.size() > kMax ? token.substr(0, kMax) + fmt::format("... ({} characters)", token.size()) : token;
  }
  // A scalar: `inside` bytes within a grammar value; `alone` when it is itself the value at a path.
  bool grammar_scalar(std::size_t inside, std::size_t alone) {
    if (grammar_.empty()) return true;
    if (group_ >= 0) {
      grammar_add(static_cast<std::size_t>(group_), inside + 1);  // and its comma
    } else if (int g = grammar_match(depth_); g >= 0) {
      grammar_add(static_cast<std::size_t>(g), alone);
    }
    return true;
  }
  // The path whose value starts now (in a container `parent_depth` deep) as a grammar path's group
  // (the index of the first path with its param), or -1.
  int grammar_match(std::size_t parent_depth) const {
    if (grammar_.empty() || parent_depth == 0 || parent_depth > kPathDepth) return -1;
    for (std::size_t i = 0; i < grammar_.size(); ++i) {
      const auto& keys = grammar_[i].keys;
      std::size_t length = 0;
      while (length < keys.size() && !keys[length].empty()) ++length;
      if (length != parent_depth) continue;
      bool same = true;
      for (std::size_t d = 0; d < length && same; ++d) same = keys[d] == path_[d];
      if (same) return static_cast<int>(group_of(i));
    }
    return -1;
  }
  std::size_t group_of(std::size_t i) const {
    for (std::size_t j = 0; j < i; ++j)
      if (grammar_[j].param == grammar_[i].param) return j;
    return i;
  }
  void grammar_add(std::size_t group, std::size_t bytes) {
    grammar_sums_[group] += bytes;
    if (grammar_sums_[group] <= limits_.max_grammar_bytes) return;
    const std::string param(grammar_[group].param);
    throw invalid_request(param,
                          fmt::format("{}: more than {} bytes of schema or grammar text, the server's limit "
                                      "(--max-grammar-bytes); refused while the body was read",
                                      param, limits_.max_grammar_bytes),
                          "grammar_too_large");
  }
  [[noreturn]] void refuse(const std::string& why) const {
    if (depth_ >= 1 && !field_.empty()) throw invalid_request(field_, field_ + ": " + why);
    throw invalid_request("", "the request body: " + why, "invalid_json");
  }

  const JsonLimits& limits_;
  const bool build_;
  std::size_t depth_ = 0;
  std::size_t containers_ = 0;
  std::size_t values_ = 0;
  std::string field_;  // the top-level key whose value is being read
  bool field_array_ = false;      // that value is an array (else an object)
  std::size_t field_items_ = 0;   // its items so far
  const FieldBudget* budget_ = nullptr;  // the field's budget, if it has one
  std::size_t field_bytes_ = 0;   // string and key bytes inside it so far
  static constexpr std::size_t kPathDepth = 4;  // the longest grammar path
  const std::span<const GrammarPath> grammar_;  // empty: no grammar budget
  std::vector<std::size_t> grammar_sums_;        // bytes counted per group (first path of a param)
  std::array<std::string, kPathDepth> path_;    // the key (or "*") at each of the first levels
  int group_ = -1;                 // the group of the grammar value being read, or -1
  std::size_t group_depth_ = 0;    // the depth of that value's container
  OrderedJsonBuilder dom_;  // the DOM, with `build` (base/json_ordered.h: linear in an object's width)
  std::string syntax_error_;  // nlohmann's message of the first syntax error
};

// The body's bytes as the JSON lexer reads them, polling the request's cancel token every 64 KiB:
// one multi-megabyte string is a single token, read without a SAX event in between.
class CancellableBytes {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  static constexpr std::size_t kPollBytes = 64 << 10;

  CancellableBytes() = default;
  explicit CancellableBytes(const char* p) : p_(p) {}
  reference operator*() const { return *p_; }
  CancellableBytes& operator++() {
    if ((reinterpret_cast<std::uintptr_t>(++p_) & (kPollBytes - 1)) == 0) check_cancelled_now("the request body's parse");
    return *this;
  }
  CancellableBytes operator++(int) {
    CancellableBytes old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CancellableBytes& o) const { return p_ == o.p_; }

 private:
  const char* p_ = nullptr;
};

bool sax_parse(std::string_view body, LimitCheck& check) {
  return RequestJson::sax_parse(CancellableBytes(body.data()), CancellableBytes(body.data() + body.size()), &check);
}

}  // namespace

std::vector<FieldBudget> default_field_budgets(std::size_t max_stop_strings, std::size_t max_stop_bytes) {
  return {{"stop", max_stop_strings, max_stop_bytes, "--max-stop-strings", "--max-stop-bytes"},
          {"stop_sequences", max_stop_strings, max_stop_bytes, "--max-stop-strings", "--max-stop-bytes"},
          {"logit_bias", 1024, 0, "", ""},
          {"tools", 128, 0, "", ""},
          {"messages", 2048, 0, "", ""},
          {"input", 2048, 0, "", ""}};
}

void check_json_limits(std::string_view body, const JsonLimits& limits, std::span<const GrammarPath> grammar) {
  LimitCheck check(limits, /*build=*/false, grammar);
  sax_parse(body, check);
}

RequestJson parse_json_body(std::string_view body, const JsonLimits& limits, std::span<const GrammarPath> grammar) {
  LimitCheck builder(limits, /*build=*/true, grammar);
  if (!sax_parse(body, builder)) {
    std::string why = builder.syntax_error();  // "[json.exception.parse_error.101] parse error at ..."
    if (auto bracket = why.find("] "); bracket != std::string::npos) why.erase(0, bracket + 2);
    throw invalid_request("", "the request body is not valid JSON: " + why, "invalid_json");
  }
  RequestJson j = builder.take();
  if (!j.is_object())
    throw invalid_request("", std::string("the request body must be a JSON object, got ") + json_type_name(j),
                          "invalid_json");
  return j;
}

}  // namespace ogai::serve
