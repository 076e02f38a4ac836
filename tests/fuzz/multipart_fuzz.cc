// libFuzzer target: arbitrary bytes as the multipart/form-data body of POST
// /v1/audio/transcriptions (serve/audio/multipart.h, transcription_request.h): the bounded
// multipart parser, then the transcription form's field readers and the WAV header reader. The
// only failure an input may cause is ApiError (the 400 the route writes). The first line of the
// input is the Content-Type header, so boundaries are fuzzed too. Seeds: make_seeds.py.
#include <string>

#include "fuzz_support.h"
#include "serve/audio/multipart.h"
#include "serve/audio/transcription_request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(ogai::fuzz::as_text(data, size));
  const std::size_t eol = input.find('\n');
  const std::string content_type = eol == std::string::npos ? input : input.substr(0, eol);
  const std::string body = eol == std::string::npos ? std::string() : input.substr(eol + 1);
  for (bool translate : {false, true}) {
    try {
      ogai::serve::ApiRequest r = ogai::serve::parse_transcription_request(content_type, body, translate);
      (void)r;
    } catch (const ogai::serve::ApiError&) {
    }
  }
  try {
    (void)ogai::serve::parse_multipart(body, "b", {4, 256});
  } catch (const ogai::serve::ApiError&) {
  }
  (void)ogai::serve::wav_duration(body);
  return 0;
}
