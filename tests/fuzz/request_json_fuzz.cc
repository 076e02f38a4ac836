// libFuzzer target: arbitrary bytes as the JSON body of POST /v1/chat/completions and
// /v1/completions, through the server's whole request parsing (the streaming depth/size check,
// the bounded DOM parse, every field reader, response_format's schema/grammar compilation). The
// only failures an input may cause are ApiError (the 4xx the route writes) and ogai::Error.
// Seeds: request bodies written by make_seeds.py.
#include <string>

#include "fuzz_support.h"
#include "serve/common/api_request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string body(ogai::fuzz::as_text(data, size));
  using Parse = ogai::serve::ApiRequest (*)(const std::string&, const ogai::serve::JsonLimits&);
  for (Parse parse : {Parse{&ogai::serve::parse_chat_request}, Parse{&ogai::serve::parse_completion_request}}) {
    try {
      ogai::serve::ApiRequest r = parse(body, {});
      (void)r;
    } catch (const ogai::serve::ApiError&) {
    } catch (const ogai::Error&) {
    }
  }
  return 0;
}
