// ogai::Error: the one exception type ogai throws across its public API.
//
// An error says what failed, where (a file, a document path such as
// `pipeline.workflow.state.full_key_0`, a CLI flag, a tensor name) and what was expected.
// Exceptions from dependencies (ONNX Runtime, yaml-cpp, JSON, protobuf) are caught at the stage
// that calls them and rethrown as ogai::Error, so callers handle exactly one type.
#pragma once

#include <stdexcept>
#include <string>

#include "ogai/export.h"

namespace ogai {

enum class ErrorCode {
  kInvalidArgument,  // a caller-supplied value is out of range or malformed (CLI flag, request field)
  kNotFound,         // a file, tensor, port or name does not exist
  kParse,            // a document (YAML, JSON, protobuf, template) cannot be read
  kInvalidPackage,   // the package is readable but breaks its contract (metadata rules, ONNX admission)
  kUnsupported,      // valid input that ogai does not implement (says what is missing)
  kRuntime,          // ONNX Runtime or the OS failed while running
  kCancelled,        // the caller cancelled the work
  kInternal,         // a bug in ogai
};

OGAI_API const char* error_code_name(ErrorCode code);

class OGAI_API Error : public std::runtime_error {
 public:
  // `where` may be empty; what() reads "<where>: <message>" otherwise.
  Error(ErrorCode code, std::string where, std::string message);

  ErrorCode code() const { return code_; }
  const std::string& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  ErrorCode code_;
  std::string where_;
  std::string message_;
};

}  // namespace ogai
