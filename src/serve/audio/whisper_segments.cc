#include "serve/audio/whisper_segments.h"

namespace ogai::serve {
namespace {

// The ids worth keeping: text below eos, and timestamps.
std::vector<TokenId> kept(std::span<const TokenId> ids, TokenId first, TokenId eos) {
  std::vector<TokenId> out;
  for (TokenId id : ids)
    if (id < eos || id >= first) out.push_back(id);
  return out;
}

double seconds(TokenId stamp, TokenId first) { return (stamp - first) * kTimestampSeconds; }

TimedTokens segment(std::vector<TokenId> ids, TokenId first, double start, double end) {
  TimedTokens t{start, end, {}, {}};
  for (TokenId id : ids)
    if (id < first) t.text.push_back(id);
  t.ids = std::move(ids);
  return t;
}

}  // namespace

WindowSplit split_window(std::span<const TokenId> raw, TokenId first, TokenId eos, double window_seconds) {
  const std::vector<TokenId> ids = kept(raw, first, eos);
  const auto stamp = [&](std::size_t i) { return ids[i] >= first; };
  const std::size_t n = ids.size();
  const bool single_ending = n >= 2 && !stamp(n - 2) && stamp(n - 1);
  std::vector<std::size_t> cuts;  // positions where a new segment begins
  for (std::size_t i = 1; i < n; ++i)
    if (stamp(i - 1) && stamp(i)) cuts.push_back(i);
  WindowSplit split;
  if (cuts.empty()) {
    double end = window_seconds;
    for (std::size_t i = n; i-- > 0;)
      if (stamp(i)) {
        if (ids[i] != first) end = seconds(ids[i], first);
        break;
      }
    split.segments.push_back(segment(ids, first, 0.0, end));
    return split;
  }
  if (single_ending) cuts.push_back(n);
  std::size_t begin = 0;
  for (std::size_t cut : cuts) {
    std::vector<TokenId> slice(ids.begin() + static_cast<std::ptrdiff_t>(begin),
                               ids.begin() + static_cast<std::ptrdiff_t>(cut));
    // A slice that does not open with a timestamp (only without the timestamp rules) starts
    // where the previous one ended.
    const double start = slice.front() >= first ? seconds(slice.front(), first)
                                                : (split.segments.empty() ? 0.0 : split.segments.back().end);
    const double end = slice.back() >= first ? seconds(slice.back(), first) : start;
    split.segments.push_back(segment(std::move(slice), first, start, end));
    begin = cut;
  }
  if (!single_ending) {
    const int steps = ids[begin - 1] - first;
    if (steps > 0) split.advance = steps;
  }
  return split;
}

}  // namespace ogai::serve
