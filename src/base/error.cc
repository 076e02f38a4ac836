#include "ogai/error.h"

namespace ogai {
namespace {

std::string compose(const std::string& where, const std::string& message) {
  return where.empty() ? message : where + ": " + message;
}

}  // namespace

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kParse: return "parse_error";
    case ErrorCode::kInvalidPackage: return "invalid_package";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kRuntime: return "runtime_error";
    case ErrorCode::kCancelled: return "cancelled";
    case ErrorCode::kInternal: return "internal_error";
  }
  return "unknown";
}

Error::Error(ErrorCode code, std::string where, std::string message)
    : std::runtime_error(compose(where, message)),
      code_(code),
      where_(std::move(where)),
      message_(std::move(message)) {}

}  // namespace ogai
