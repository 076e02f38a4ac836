// Status codes, the per-thread last error and the exception boundary of the C API.
#include <cstdlib>
#include <cstring>
#include <exception>

#include "capi_internal.h"

namespace ogai::capi {
namespace {

thread_local std::string last_error;

ogai_status status_of(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return OGAI_INVALID_ARGUMENT;
    case ErrorCode::kNotFound: return OGAI_NOT_FOUND;
    case ErrorCode::kParse: return OGAI_PARSE;
    case ErrorCode::kInvalidPackage: return OGAI_INVALID_PACKAGE;
    case ErrorCode::kUnsupported: return OGAI_UNSUPPORTED;
    case ErrorCode::kRuntime: return OGAI_RUNTIME;
    case ErrorCode::kCancelled: return OGAI_CANCELLED;
    case ErrorCode::kInternal: return OGAI_INTERNAL;
  }
  return OGAI_INTERNAL;
}

}  // namespace

ogai_status fail(ogai_status status, const std::string& message) {
  try {
    last_error = message;
  } catch (...) {
    last_error.clear();  // out of memory while copying the message: keep the status
  }
  return status;
}

char* copy_string(const std::string& text) {
  auto* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return out;
}

ogai_status null_argument(const char* name) { return fail(OGAI_INVALID_ARGUMENT, std::string(name) + ": must not be NULL"); }

ogai_status current_exception_status() {
  try {
    throw;
  } catch (const Error& e) {
    return fail(status_of(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return fail(OGAI_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(OGAI_INTERNAL, std::string("unexpected exception: ") + e.what());
  } catch (...) {
    return fail(OGAI_INTERNAL, "unexpected exception of an unknown type");
  }
}

}  // namespace ogai::capi

extern "C" {

const char* ogai_version(void) { return OGAI_VERSION_STRING; }

const char* ogai_last_error_message(void) { return ogai::capi::last_error.c_str(); }

const char* ogai_status_name(ogai_status status) {
  switch (status) {
    case OGAI_OK: return "ok";
    case OGAI_INVALID_ARGUMENT: return "invalid_argument";
    case OGAI_NOT_FOUND: return "not_found";
    case OGAI_PARSE: return "parse";
    case OGAI_INVALID_PACKAGE: return "invalid_package";
    case OGAI_UNSUPPORTED: return "unsupported";
    case OGAI_RUNTIME: return "runtime";
    case OGAI_CANCELLED: return "cancelled";
    case OGAI_INTERNAL: return "internal";
    case OGAI_OUT_OF_MEMORY: return "out_of_memory";
  }
  return "unknown";
}

const char* ogai_finish_reason_name(ogai_finish_reason reason) {
  switch (reason) {
    case OGAI_FINISH_STOP: return "stop";
    case OGAI_FINISH_LENGTH: return "length";
    case OGAI_FINISH_EOS: return "eos";
    case OGAI_FINISH_CANCELLED: return "cancelled";
  }
  return "unknown";
}

}  // extern "C"
