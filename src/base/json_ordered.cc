#include "base/json_ordered.h"

#include <memory>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "base/json_parse.h"

namespace ogai {
namespace {

using Ordered = nlohmann::ordered_json;
using Members = std::vector<std::pair<const std::string, Ordered>>;  // ordered_map's storage

// Objects up to this many keys find duplicates by a scan; wider ones through a hash index.
constexpr std::size_t kScanKeys = 16;

class OrderedBuilder : public nlohmann::json_sax<Ordered> {
 public:
  explicit OrderedBuilder(const std::string& origin) : origin_(origin) {}
  Ordered take() { return std::move(root_); }

  bool null() override { return put(Ordered(nullptr)); }
  bool boolean(bool v) override { return put(Ordered(v)); }
  bool number_integer(number_integer_t v) override { return put(Ordered(v)); }
  bool number_unsigned(number_unsigned_t v) override { return put(Ordered(v)); }
  bool number_float(number_float_t v, const string_t&) override { return put(Ordered(v)); }
  bool string(string_t& v) override { return put(Ordered(std::move(v))); }
  bool binary(binary_t& v) override { return put(Ordered::binary(std::move(v))); }
  bool start_object(std::size_t) override { return open(Ordered::object()); }
  bool start_array(std::size_t) override { return open(Ordered::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    fail(ErrorCode::kParse, origin_, "invalid JSON at byte {}: {}", position, e.what());
  }

 private:
  struct Open {
    Ordered* value;
    std::unique_ptr<std::unordered_map<std::string, std::size_t>> index;  // wide objects: key -> position
  };

  bool open(Ordered container) {
    if (stack_.size() + 1 > static_cast<std::size_t>(kMaxJsonDepth))
      fail(ErrorCode::kParse, origin_, "JSON nested more than {} levels deep", kMaxJsonDepth);
    Ordered* at = place(std::move(container));
    stack_.push_back({at, nullptr});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  bool put(Ordered v) {
    place(std::move(v));
    return true;
  }
  // Puts `v` where the parse is: the root, the end of the open array, or under key_ in the open
  // object. Pointers to open containers stay valid: a parent grows only after its child closed.
  Ordered* place(Ordered v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Open& top = stack_.back();
    if (top.value->is_array()) {
      auto& items = top.value->get_ref<Ordered::array_t&>();
      items.push_back(std::move(v));
      return &items.back();
    }
    return member(top, std::move(v));
  }
  Ordered* member(Open& top, Ordered v) {
    auto& members = static_cast<Members&>(top.value->get_ref<Ordered::object_t&>());
    if (auto dup = find(top, members)) {
      members[*dup].second = std::move(v);
      return &members[*dup].second;
    }
    members.emplace_back(key_, std::move(v));
    if (top.index) top.index->emplace(key_, members.size() - 1);
    return &members.back().second;
  }
  std::optional<std::size_t> find(Open& top, const Members& members) {
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

  const std::string& origin_;
  Ordered root_;
  std::vector<Open> stack_;
  std::string key_;
};

}  // namespace

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
