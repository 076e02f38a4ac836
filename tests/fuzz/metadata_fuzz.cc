// libFuzzer target: arbitrary bytes through the metadata reader, the document rules and the
// decoder-ABI derivation, as YAML and as JSON. The only acceptable failure is ogai::Error; any
// other exception, crash, leak or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "metadata/package.h"
#include "ogai/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* origin : {"fuzz.yaml", "fuzz.json"}) {
    try {
      ogai::metadata::ValidationReport report = ogai::metadata::validate_text(text, origin);
      (void)report.diagnostics.text();
    } catch (const ogai::Error&) {
    }
  }
  return 0;
}
