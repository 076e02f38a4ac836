// libFuzzer target: arbitrary bytes as a tokenizer.json; a document that loads encodes and
// decodes a few fixed texts and its own bytes (with and without special tokens) and streams them
// back. Seeds: every tokenizer.json in ../shared and tests/data (scripts/fuzz.sh).
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tokenizer/streaming_decoder.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = ogai::fuzz::as_text(data, size);
  ogai::fuzz::expect_only_ogai_errors([&] {
    auto tok = ogai::tokenizer::Tokenizer::from_json(text, "fuzz.json");
    for (std::string_view sample : {std::string_view("Hello world! 12 345 \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80"),
                                    std::string_view("  <s> a\tb\n\n</s> "), text.substr(0, 512)}) {
      ogai::fuzz::expect_only_ogai_errors([&] {
        for (bool special : {true, false}) {
          std::vector<std::int32_t> ids = tok.encode(sample, special);
          (void)tok.decode(ids, false);
          (void)tok.decode(ids, true);
          ogai::tokenizer::StreamingDecoder stream(tok, !special);
          // The first 64 ids: a run of byte-fallback tokens keeps the window open, so streaming
          // costs O(run^2) (a known cost, kept small here so the fuzzer explores).
          for (std::size_t i = 0; i < ids.size() && i < 64; ++i) (void)stream.step(ids[i]);
          (void)stream.flush();
        }
      });
    }
    std::vector<std::int32_t> odd = {0, 1, 2, -1, 7, 1 << 20, static_cast<std::int32_t>(tok.vocab_size()) - 1};
    (void)tok.decode(odd);
  });
  return 0;
}
