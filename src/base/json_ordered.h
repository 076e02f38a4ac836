// JSON text -> nlohmann::ordered_json (keys in the client's order) in linear time.
// nlohmann's own ordered parse inserts each key with a linear search for a duplicate, so an
// object of n keys costs O(n^2): 300,000 keys took minutes (issue 37). This builds the same DOM
// through the SAX interface, appending keys and finding duplicates through a hash index only
// for objects wide enough to need one. Duplicate keys keep their first position and the last
// value, as nlohmann's parser does. Containers deeper than kMaxJsonDepth (json_parse.h) stop
// the parse.
// Throws ogai::Error kParse naming `origin` with the byte position. Thread-safe (no shared state).
// OrderedJsonBuilder is the DOM-building half of that parse, shared with parsers that check
// their own limits on the same events (the server's request bodies, serve/common/json_limits):
// feed it key / value / open / close in document order. Not thread-safe (one per parse).
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ogai {

nlohmann::ordered_json parse_ordered_json(std::string_view text, const std::string& origin);

class OrderedJsonBuilder {
 public:
  using Json = nlohmann::ordered_json;
  // The key of the next member placed in the innermost open object.
  void key(std::string k) { key_ = std::move(k); }
  // A scalar where the parse is: the root, the end of the innermost array, or under key().
  void value(Json v) { place(std::move(v)); }
  // An empty array or object where the parse is; values go into it until close().
  void open(bool array);
  void close() { stack_.pop_back(); }
  std::size_t depth() const { return stack_.size(); }  // containers open
  Json take() { return std::move(root_); }

 private:
  using Members = std::vector<std::pair<const std::string, Json>>;  // ordered_map's storage
  struct Open {
    Json* value;
    std::unique_ptr<std::unordered_map<std::string, std::size_t>> index;  // wide objects: key -> position
  };
  Json* place(Json v);
  Json* member(Open& top, Json v);
  std::optional<std::size_t> find(Open& top, const Members& members);

  Json root_;
  std::vector<Open> stack_;
  std::string key_;
};

}  // namespace ogai
