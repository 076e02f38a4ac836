#include "generate/prompt_media.h"

#include <algorithm>

namespace ogai::generate {

FeatureRows PromptMedia::rows(std::size_t begin, std::size_t end, std::size_t ports) const {
  FeatureRows out;
  out.bytes.resize(ports);
  out.rows.assign(ports, 0);
  for (std::size_t i = 0; i < items.size() && i < marks.size(); ++i) {
    const EncodedMedia& item = items[i];
    const MediaMark& mark = marks[i];
    const std::size_t from = std::max(begin, mark.begin), to = std::min(end, mark.begin + mark.length);
    if (from >= to || item.port >= ports) continue;
    const auto* data = item.features->data();
    auto& dst = out.bytes[item.port];
    dst.insert(dst.end(), data + (from - mark.begin) * item.row_bytes, data + (to - mark.begin) * item.row_bytes);
    out.rows[item.port] += static_cast<std::int64_t>(to - from);
  }
  return out;
}

}  // namespace ogai::generate
