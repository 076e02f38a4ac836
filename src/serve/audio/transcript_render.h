// A transcription's answer in each response_format OpenAI defines:
//   json          {"text": TEXT}                               application/json
//   text          TEXT                                         text/plain
//   srt           numbered cues "1\n00:00:00,000 --> 00:00:02,500\nTEXT\n\n"   application/x-subrip
//   vtt           "WEBVTT\n\n" then cues "00:00:00.000 --> 00:00:02.500\nTEXT\n\n" text/vtt
//   verbose_json  {"task", "language", "duration", "text", "segments": [{id, seek, start, end,
//                 text, tokens, temperature, avg_logprob, compression_ratio, no_speech_prob}]}
// Segments come from the caller: until the engine reports timestamps, the server gives one
// segment spanning the audio (transcription_route.cc). Cue times are clamped at 0 and rounded to
// milliseconds. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "serve/audio/transcription_request.h"

namespace ogai::serve {

struct TranscriptSegment {
  double start = 0;  // seconds
  double end = 0;
  std::string text;
  std::vector<int> tokens;
  double avg_logprob = 0;
};

struct Transcript {
  std::string task = "transcribe";  // or "translate"
  std::string language;
  double duration = 0;
  double temperature = 0;
  std::string text;
  std::vector<TranscriptSegment> segments;
};

struct RenderedTranscript {
  std::string content_type;
  std::string body;
};

RenderedTranscript render_transcript(const Transcript& transcript, TranscriptFormat format);

// "00:01:02,345" (srt, `comma`) or "00:01:02.345" (vtt).
std::string cue_time(double seconds, bool comma);

}  // namespace ogai::serve
