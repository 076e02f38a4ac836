#include <algorithm>

#include "base/log.h"
#include "ort/ort_api.h"
#include "ort/session.h"

namespace ogai::ort {
namespace {

void ort_logger(void*, OrtLoggingLevel severity, const char* category, const char*, const char* code_location,
                const char* message) {
  LogLevel level = severity >= ORT_LOGGING_LEVEL_ERROR ? LogLevel::kError
                   : severity == ORT_LOGGING_LEVEL_WARNING ? LogLevel::kWarn
                   : severity == ORT_LOGGING_LEVEL_INFO    ? LogLevel::kDebug
                                                           : LogLevel::kTrace;
  log(level, "onnxruntime [{}] {}", category, message);
}

OrtLoggingLevel ort_level() {
  switch (log_level()) {
    case LogLevel::kTrace: return ORT_LOGGING_LEVEL_VERBOSE;
    case LogLevel::kDebug: return ORT_LOGGING_LEVEL_INFO;
    case LogLevel::kInfo:
    case LogLevel::kWarn: return ORT_LOGGING_LEVEL_WARNING;
    case LogLevel::kError: return ORT_LOGGING_LEVEL_ERROR;
  }
  return ORT_LOGGING_LEVEL_WARNING;
}

}  // namespace

Ort::Env& environment() {
  static Ort::Env* env = guard("ONNX Runtime environment", [] {
    return new Ort::Env(ort_level(), "ogai", ort_logger, nullptr);  // intentionally never freed
  });
  return *env;
}

std::string runtime_version() { return Ort::GetVersionString(); }

std::vector<std::string> available_providers() {
  return guard("ONNX Runtime providers", [] { return Ort::GetAvailableProviders(); });
}

}  // namespace ogai::ort
