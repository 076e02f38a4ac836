// libFuzzer target: arbitrary bytes as the JSON body of POST /v1/chat/completions,
// /v1/completions, /v1/responses and /v1/messages (each surface's translator into the request
// model, media parts included), through the server's whole request parsing (the streaming depth/size check,
// the bounded DOM parse, every field reader, response_format's schema/grammar compilation). The
// only failures an input may cause are ApiError (the 4xx the route writes) and ogai::Error.
// Seeds: request bodies written by make_seeds.py.
#include <string>

#include "fuzz_support.h"
#include "serve/anthropic/messages_request.h"
#include "serve/common/api_request.h"
#include "serve/responses/responses_api.h"

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
  try {
    (void)ogai::serve::parse_responses_request(body, {});
  } catch (const ogai::serve::ApiError&) {
  } catch (const ogai::Error&) {
  }
  try {
    (void)ogai::serve::parse_messages_request(body, ogai::serve::MessagesRoute::kCreate, {});
  } catch (const ogai::serve::ApiError&) {
  } catch (const ogai::Error&) {
  }
  return 0;
}
