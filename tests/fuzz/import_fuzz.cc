// libFuzzer target: arbitrary bytes as the JSON files `ogai import` reads from an ONNX Runtime
// GenAI folder. The first byte picks the file: genai_config.json (the fail-closed reader and every
// section it maps) or tokenizer.json (the summary: algorithm, byte-level, vocabulary). Seeds: the
// genai_config.json files of tests/data/genai and ../shared/ortgenai, the shared tokenizers cut
// small, and deep shapes (issue 37: 200,000-deep arrays in genai_config.json overflowed the stack).
#include <string>

#include "fuzz_support.h"
#include "importer/genai_config.h"
#include "importer/tokenizer_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(ogai::fuzz::as_text(data + 1, size - 1));
  ogai::fuzz::expect_only_ogai_errors([&] {
    if (data[0] % 2 == 0)
      (void)ogai::importer::parse_genai_config(text, "genai_config.json");
    else
      (void)ogai::importer::parse_tokenizer_summary(text, "tokenizer.json");
  });
  return 0;
}
