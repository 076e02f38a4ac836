#include "serve/media_out/speech_request.h"

#include <array>

#include "serve/common/api_error.h"
#include "serve/common/json_fields.h"
#include "serve/common/unknown_fields.h"

namespace ogai::serve {
namespace {

constexpr std::array<std::string_view, 10> kFields{"model", "input", "voice", "instructions", "response_format",
                                                   "speed", "stream_format", "max_output_units", "user", "metadata"};

}  // namespace

SpeechHttpRequest parse_speech_request(std::string_view body, const JsonLimits& limits) {
  const RequestJson doc = parse_json_object(std::string(body), limits);
  FieldReader f(doc);
  SpeechHttpRequest r;
  r.unknown_fields = unknown_fields(doc, kFields);
  auto model = f.string("model");
  if (!model) throw invalid_request("model", "model: required (the id GET /v1/models lists)");
  r.model = std::move(*model);
  auto input = f.string("input");
  if (!input || input->empty()) throw invalid_request("input", "input: required, the text to speak");
  r.speech.input = std::move(*input);
  r.speech.instructions = f.string("instructions").value_or("");
  if (auto voice = f.string("voice"); voice && !voice->empty() && *voice != "default")
    throw invalid_request("voice", "voice is " + quote_value(*voice) +
                                       "; this package declares no voices (v1 has no voice role): omit voice or send "
                                       "'default'");
  if (auto speed = f.number("speed"); speed && *speed != 1.0)
    throw invalid_request("speed", "speed is " + json_preview(*f.get("speed")) +
                                       "; this package declares no speed control: omit speed or send 1");
  if (auto format = f.string("response_format")) {
    if (*format != "wav" && *format != "pcm")
      throw invalid_request("response_format", "response_format is " + quote_value(*format) +
                                                   "; ogai answers 'wav' or 'pcm' (16-bit little-endian samples)");
    r.pcm = *format == "pcm";
  }
  if (auto stream = f.string("stream_format"); stream && *stream != "audio")
    throw invalid_request("stream_format", "stream_format is " + quote_value(*stream) +
                                               "; the audio is buffered and sent whole ('audio')");
  r.speech.max_output_units = f.integer("max_output_units");
  f.string("user");
  return r;
}

}  // namespace ogai::serve
