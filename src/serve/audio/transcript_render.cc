#include "serve/audio/transcript_render.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace ogai::serve {
namespace {

std::string json_text(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

std::string cues(const Transcript& t, bool srt) {
  std::string out = srt ? "" : "WEBVTT\n\n";
  for (std::size_t i = 0; i < t.segments.size(); ++i) {
    const TranscriptSegment& s = t.segments[i];
    if (srt) out += fmt::format("{}\n", i + 1);
    out += fmt::format("{} --> {}\n{}\n\n", cue_time(s.start, srt), cue_time(s.end, srt), s.text);
  }
  return out;
}

nlohmann::json verbose(const Transcript& t) {
  nlohmann::json segments = nlohmann::json::array();
  for (std::size_t i = 0; i < t.segments.size(); ++i) {
    const TranscriptSegment& s = t.segments[i];
    segments.push_back({{"id", i}, {"seek", 0}, {"start", s.start}, {"end", s.end}, {"text", s.text},
                        {"tokens", s.tokens}, {"temperature", t.temperature}, {"avg_logprob", s.avg_logprob},
                        {"compression_ratio", 0.0}, {"no_speech_prob", 0.0}});
  }
  return {{"task", t.task}, {"language", t.language}, {"duration", t.duration}, {"text", t.text},
          {"segments", std::move(segments)}};
}

}  // namespace

std::string cue_time(double seconds, bool comma) {
  const std::int64_t ms = std::isfinite(seconds) && seconds > 0 ? std::llround(seconds * 1000) : 0;
  return fmt::format("{:02}:{:02}:{:02}{}{:03}", ms / 3'600'000, ms / 60'000 % 60, ms / 1000 % 60, comma ? ',' : '.',
                     ms % 1000);
}

RenderedTranscript render_transcript(const Transcript& t, TranscriptFormat format) {
  switch (format) {
    case TranscriptFormat::kText: return {"text/plain; charset=utf-8", t.text};
    case TranscriptFormat::kSrt: return {"application/x-subrip; charset=utf-8", cues(t, true)};
    case TranscriptFormat::kVtt: return {"text/vtt; charset=utf-8", cues(t, false)};
    case TranscriptFormat::kVerboseJson: return {"application/json", json_text(verbose(t))};
    case TranscriptFormat::kJson: break;
  }
  return {"application/json", json_text({{"text", t.text}})};
}

}  // namespace ogai::serve
