#include "generate/prompt_media.h"

#include "base/error.h"

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

void PromptMedia::set_mrope(std::int64_t length) {
  std::vector<MropeSpan> spans;
  std::int64_t merge = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const EncodedMedia& m = items[i];
    if (!m.grid) continue;
    const std::int64_t soft = mrope_soft_tokens(*m.grid, m.merge);
    if (soft != m.rows || static_cast<std::int64_t>(marks[i].length) != m.rows || (merge && merge != m.merge))
      fail(ErrorCode::kInvalidPackage, m.origin,
           "the image's grid [{}, {}, {}] with a spatial merge of {} makes {} soft tokens, but its encoder returned {} "
           "feature rows ({} placed in the prompt)", m.grid->t, m.grid->h, m.grid->w, m.merge, soft, m.rows,
           marks[i].length);
    merge = m.merge;
    spans.push_back({static_cast<std::int64_t>(marks[i].begin), *m.grid});
  }
  if (spans.empty()) return;
  mrope = std::make_shared<const MropePositions>(mrope_positions(length, spans, merge));
}

}  // namespace ogai::generate
