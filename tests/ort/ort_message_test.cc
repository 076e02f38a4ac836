// ONNX Runtime's messages made readable (ort/ort_message.h): the raw message one byte-flipped graph
// raised (issue 28 finding 8) loses its source location and C++ signature, keeps what failed.
#include <gtest/gtest.h>

#include "ort/ort_message.h"

namespace ogai::ort {
namespace {

TEST(ReadableOrtMessage, DropsSourceLocationsAndSignatures) {
  const std::string raw =
      "Load model from /tmp/x/model.onnx failed:/onnxruntime_src/onnxruntime/core/graph/graph.cc:1473 "
      "onnxruntime::Graph::Graph(const onnxruntime::Model&, onnxruntime::GraphProto*, const "
      "std::unordered_map<std::string, int>&, onnxruntime::Version, onnxruntime::IOnnxRuntimeOpSchemaCollectionPtr, "
      "onnxruntime::Graph*, const onnxruntime::Node*, const onnxruntime::logging::Logger&, bool) "
      "This is an invalid model. Duplicate definition of name (x).";
  const std::string readable = readable_ort_message(raw);
  EXPECT_EQ(readable.find("onnxruntime::"), std::string::npos) << readable;
  EXPECT_EQ(readable.find("graph.cc"), std::string::npos) << readable;
  EXPECT_NE(readable.find("This is an invalid model. Duplicate definition of name (x)."), std::string::npos) << readable;
  EXPECT_NE(readable.find("Load model from /tmp/x/model.onnx failed"), std::string::npos) << readable;
}

TEST(ReadableOrtMessage, BoundsItsLengthAndNeverReturnsNothing) {
  EXPECT_LE(readable_ort_message(std::string(10000, 'a')).size(), 403u);
  EXPECT_EQ(readable_ort_message("onnxruntime::A::b()"), "an unspecified error");
  EXPECT_EQ(readable_ort_message("plain words stay"), "plain words stay");
}

}  // namespace
}  // namespace ogai::ort
