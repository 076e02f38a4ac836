#include "onnx/wire.h"

#include "base/error.h"

namespace ogai::onnx {

void WireReader::malformed(const char* what) const {
  fail(ErrorCode::kParse, *origin_, "not a valid ONNX protobuf: {}", what);
}

std::uint64_t WireReader::read_varint() {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= end_) malformed("truncated varint");
    std::uint8_t byte = *pos_++;
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  malformed("varint longer than 10 bytes");
}

void WireReader::next_field(std::uint32_t& field, WireType& type) {
  std::uint64_t tag = read_varint();
  field = static_cast<std::uint32_t>(tag >> 3);
  int wire = static_cast<int>(tag & 7);
  if (field == 0) malformed("field number 0");
  if (wire != kVarint && wire != kFixed64 && wire != kLengthDelimited && wire != kFixed32)
    malformed("unsupported wire type (groups are not used by ONNX)");
  type = static_cast<WireType>(wire);
}

std::string_view WireReader::read_bytes() {
  std::uint64_t length = read_varint();
  if (length > static_cast<std::uint64_t>(end_ - pos_)) malformed("field length past the end of the data");
  std::string_view bytes(reinterpret_cast<const char*>(pos_), static_cast<std::size_t>(length));
  pos_ += length;
  return bytes;
}

WireReader WireReader::read_message() {
  std::string_view bytes = read_bytes();
  auto begin = reinterpret_cast<const std::uint8_t*>(bytes.data());
  return WireReader(begin, begin + bytes.size(), origin_);
}

void WireReader::skip(WireType type) {
  switch (type) {
    case kVarint: read_varint(); return;
    case kLengthDelimited: read_bytes(); return;
    case kFixed64:
    case kFixed32: {
      std::size_t n = type == kFixed64 ? 8 : 4;
      if (static_cast<std::size_t>(end_ - pos_) < n) malformed("truncated fixed-width field");
      pos_ += n;
      return;
    }
  }
}

}  // namespace ogai::onnx
