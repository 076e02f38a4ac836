#include <algorithm>
#include <cstdlib>
#include <cstring>

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

// ONNX Runtime's Linux builds start a telemetry system with the environment: it writes
// /tmp/mat-debug-PID.log (in TMPDIR), a session file and a database under
// ~/.cache/Microsoft/DeveloperTools/.onnxruntime/. ORT reads ORT_DISABLE_TELEMETRY=1 when the
// environment is created, so it is set first unless the user opted in with OGAI_ORT_TELEMETRY=1.
bool telemetry_opted_in() {
  const char* v = std::getenv("OGAI_ORT_TELEMETRY");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace

Ort::Env& environment() {
  static Ort::Env* env = guard("ONNX Runtime environment", [] {
    bool telemetry = telemetry_opted_in();
    if (!telemetry) ::setenv("ORT_DISABLE_TELEMETRY", "1", 1);
    auto* created = new Ort::Env(ort_level(), "ogai", ort_logger, nullptr);  // intentionally never freed
    if (!telemetry) created->DisableTelemetryEvents();
    return created;
  });
  return *env;
}

std::string runtime_version() { return Ort::GetVersionString(); }

std::vector<std::string> available_providers() {
  return guard("ONNX Runtime providers", [] { return Ort::GetAvailableProviders(); });
}

}  // namespace ogai::ort
