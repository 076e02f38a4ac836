#include "base/json_ordered.h"

#include "base/error.h"
#include "base/json_parse.h"

namespace ogai {
namespace {

using Ordered = nlohmann::ordered_json;

// Objects up to this many keys find duplicates by a scan; wider ones through a hash index.
constexpr std::size_t kScanKeys = 16;

class OrderedBuilder : public nlohmann::json_sax<Ordered> {
 public:
  explicit OrderedBuilder(const std::string& origin) : origin_(origin) {}
  Ordered take() { return dom_.take(); }

  bool null() override { return put(Ordered(nullptr)); }
  bool boolean(bool v) override { return put(Ordered(v)); }
  bool number_integer(number_integer_t v) override { return put(Ordered(v)); }
  bool number_unsigned(number_unsigned_t v) override { return put(Ordered(v)); }
  bool number_float(number_float_t v, const string_t&) override { return put(Ordered(v)); }
  bool string(string_t& v) override { return put(Ordered(std::move(v))); }
  bool binary(binary_t& v) override { return put(Ordered::binary(std::move(v))); }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    dom_.key(std::move(k));
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    fail(ErrorCode::kParse, origin_, "invalid JSON at byte {}: {}", position, e.what());
  }

 private:
  bool open(bool array) {
    if (dom_.depth() + 1 > static_cast<std::size_t>(kMaxJsonDepth))
      fail(ErrorCode::kParse, origin_, "JSON nested more than {} levels deep", kMaxJsonDepth);
    dom_.open(array);
    return true;
  }
  bool close() {
    dom_.close();
    return true;
  }
  bool put(Ordered v) {
    dom_.value(std::move(v));
    return true;
  }

  const std::string& origin_;
  OrderedJsonBuilder dom_;
};

}  // namespace

void OrderedJsonBuilder::open(bool array) {
  Json* at = place(array ? Json::array() : Json::object());
  stack_.push_back({at, nullptr});
}

// Pointers to open containers stay valid: a parent grows only after its child closed.
OrderedJsonBuilder::Json* OrderedJsonBuilder::place(Json v) {
  if (stack_.empty()) {
    root_ = std::move(v);
    return &root_;
  }
  Open& top = stack_.back();
  if (top.value->is_array()) {
    auto& items = top.value->get_ref<Json::array_t&>();
    items.push_back(std::move(v));
    return &items.back();
  }
  return member(top, std::move(v));
}

// A duplicate key keeps its first position and takes the last value.
OrderedJsonBuilder::Json* OrderedJsonBuilder::member(Open& top, Json v) {
  auto& members = static_cast<Members&>(top.value->get_ref<Json::object_t&>());
  if (auto dup = find(top, members)) {
    members[*dup].second = std::move(v);
    return &members[*dup].second;
  }
  members.emplace_back(key_, std::move(v));
  if (top.index) top.index->emplace(key_, members.size() - 1);
  return &members.back().second;
}

std::optional<std::size_t> OrderedJsonBuilder::find(Open& top, const Members& members) {
  if (!top.index && members.size() >= kScanKeys) {
    top.index = std::make_unique<std::unordered_map<std::string, std::size_t>>();
    for (std::size_t i = 0; i < members.size(); ++i) top.index->emplace(members[i].first, i);
  }
  if (top.index) {
    auto it = top.index->find(key_);
    if (it == top.index->end()) return std::nullopt;
    return it->second;
  }
  for (std::size_t i = 0; i < members.size(); ++i)
    if (members[i].first == key_) return i;
  return std::nullopt;
}

nlohmann::ordered_json parse_ordered_json(std::string_view text, const std::string& origin) {
  OrderedBuilder builder(origin);
  try {
    Ordered::sax_parse(text, &builder);
  } catch (const nlohmann::json::exception& e) {
    fail(ErrorCode::kParse, origin, "invalid JSON: {}", e.what());
  }
  return builder.take();
}

}  // namespace ogai
