// One Whisper window's generated tokens split into timed segments, as OpenAI whisper's transcribe()
// does: timestamp tokens (ids >= `first`, <|0.00|>, one step = 0.02 s) that follow one another
// close a segment and open the next; each segment spans its first and last token's times and
// holds the tokens between. Where the window goes on:
//   - it ends with one timestamp after text (the speech ended there) or has no timestamp pair:
//     the next window starts after this whole one (`advance` unset);
//   - else the text after the last pair is an unfinished segment, dropped: the next window
//     starts at that pair's time (`advance` = its step count; at least 1).
// Without a pair there is one segment over the window: from 0 to the last timestamp's time
// (when there is one other than <|0.00|>), else to `window_seconds`.
// Tokens at or above `eos` that are not timestamps (EOS, other specials) are dropped. Pure; thread-safe.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "ogai/token_id.h"

namespace ogai::serve {

struct TimedTokens {
  double start = 0;  // seconds from the window's start
  double end = 0;
  std::vector<TokenId> ids;   // the segment's tokens, timestamps included
  std::vector<TokenId> text;  // the same without its timestamps
};

struct WindowSplit {
  std::vector<TimedTokens> segments;
  std::optional<int> advance;  // steps of 0.02 s; unset: the whole window
};

constexpr double kTimestampSeconds = 0.02;

// `ids`: what the decoder generated after the task prompt (EOS included or not).
WindowSplit split_window(std::span<const TokenId> ids, TokenId first, TokenId eos, double window_seconds);

}  // namespace ogai::serve
