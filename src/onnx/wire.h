// A minimal protobuf wire-format reader over a byte range: reads tags, varints and
// length-delimited fields without copying. Used to walk ModelProto while skipping weights.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ogai::onnx {

class WireReader {
 public:
  enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

  WireReader(const std::uint8_t* begin, const std::uint8_t* end, const std::string* origin)
      : pos_(begin), end_(end), origin_(origin) {}

  bool done() const { return pos_ >= end_; }
  const std::uint8_t* position() const { return pos_; }  // the next unread byte
  // Reads the next field's tag. Throws ogai::Error (kParse) on malformed input.
  void next_field(std::uint32_t& field, WireType& type);
  std::uint64_t read_varint();
  std::string_view read_bytes();   // a length-delimited field's payload
  WireReader read_message();       // a length-delimited field as a nested reader
  void skip(WireType type);        // skips the value of a field of this type

 private:
  [[noreturn]] void malformed(const char* what) const;
  const std::uint8_t* pos_;
  const std::uint8_t* end_;
  const std::string* origin_;
};

}  // namespace ogai::onnx
