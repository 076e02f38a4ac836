// JSON text -> nlohmann::ordered_json (keys in the client's order) in linear time.
// nlohmann's own ordered parse inserts each key with a linear search for a duplicate, so an
// object of n keys costs O(n^2): 300,000 keys took minutes (issue 37). This builds the same DOM
// through the SAX interface, appending keys and finding duplicates through a hash index only
// for objects wide enough to need one. Duplicate keys keep their first position and the last
// value, as nlohmann's parser does. Containers deeper than kMaxJsonDepth (json_parse.h) stop
// the parse.
// Throws ogai::Error kParse naming `origin` with the byte position. Thread-safe (no shared state).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ogai {

nlohmann::ordered_json parse_ordered_json(std::string_view text, const std::string& origin);

}  // namespace ogai
