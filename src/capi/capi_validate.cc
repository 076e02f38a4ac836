// Package validation in the C API: ogai::validate() as a flag and `RULE path: message` lines.
#include "capi_internal.h"

using ogai::capi::guarded;
using ogai::capi::null_argument;

extern "C" {

ogai_status ogai_validate(const char* path, int* valid, char** problems) {
  if (path == nullptr) return null_argument("path");
  if (valid == nullptr) return null_argument("valid");
  if (problems == nullptr) return null_argument("problems");
  return guarded([&] {
    ogai::ValidationResult result = ogai::validate(path);
    std::string lines;
    for (const auto& p : result.problems) lines += p.text() + "\n";
    *problems = ogai::capi::copy_string(lines);
    *valid = result.valid() ? 1 : 0;
    return OGAI_OK;
  });
}

}  // extern "C"
