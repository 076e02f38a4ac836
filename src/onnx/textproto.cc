#include "onnx/textproto.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <onnx/onnx_pb.h>  // defines ONNX_API, then includes onnx-ml.pb.h (ONNX_ML)

#include "base/error.h"
#include "base/file.h"
#include "onnx/graph_info.h"

namespace ogai::onnx {
namespace {

// Keeps the first error with its position (protobuf reports 0-based line and column).
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (message_.empty()) message_ = fmt::format("line {}, column {}: {}", line + 1, column + 1, message);
  }
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

}  // namespace

std::string textproto_to_binary(const std::filesystem::path& path) {
  std::string text = read_file(path);
  ::onnx::ModelProto model;
  google::protobuf::TextFormat::Parser parser;
  FirstErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(true);  // fields newer than Debian's ONNX 1.12 schema (see header)
  parser.AllowUnknownExtension(true);
  if (!parser.ParseFromString(text, &model))
    fail(ErrorCode::kParse, path.string(), "not a text-format ONNX ModelProto: {}",
         errors.message().empty() ? "parse failed" : errors.message());
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    fail(ErrorCode::kParse, path.string(), "the model cannot be serialized (over 2 GB or incomplete)");
  return bytes;
}

std::string load_model_bytes(const std::filesystem::path& path) {
  return is_textproto_path(path) ? textproto_to_binary(path) : read_file(path);
}

}  // namespace ogai::onnx
