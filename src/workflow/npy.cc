#include "workflow/npy.h"

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "base/error.h"
#include "base/file.h"

namespace ogai::workflow {
namespace {

std::string field(const std::string& header, const std::string& key, const std::string& where) {
  const auto at = header.find("'" + key + "'");
  if (at == std::string::npos) fail(ErrorCode::kParse, where, "npy header has no '{}'", key);
  auto colon = header.find(':', at);
  if (colon == std::string::npos) fail(ErrorCode::kParse, where, "npy header is malformed");
  auto start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos) fail(ErrorCode::kParse, where, "npy header is malformed");
  std::size_t end;
  if (header[start] == '\'') end = header.find('\'', start + 1) + 1;
  else if (header[start] == '(') end = header.find(')', start) + 1;
  else end = header.find_first_of(",}", start);
  if (end == std::string::npos || end == 0) fail(ErrorCode::kParse, where, "npy header is malformed");
  return header.substr(start, end - start);
}

DataType descr_type(const std::string& descr, const std::string& where) {
  static const std::map<std::string, DataType> kTypes = {
      {"|b1", DataType::kBool},    {"|i1", DataType::kInt8},     {"|u1", DataType::kUint8},
      {"<i2", DataType::kInt16},   {"<u2", DataType::kUint16},   {"<i4", DataType::kInt32},
      {"<u4", DataType::kUint32},  {"<i8", DataType::kInt64},    {"<u8", DataType::kUint64},
      {"<f2", DataType::kFloat16}, {"<f4", DataType::kFloat32},  {"<f8", DataType::kFloat64},
  };
  const std::string d = descr.size() > 2 ? descr.substr(1, descr.size() - 2) : descr;
  auto it = kTypes.find(d);
  if (it == kTypes.end()) fail(ErrorCode::kUnsupported, where, "npy dtype {} is not read (little-endian numbers and bool only)", descr);
  return it->second;
}

ort::Shape parse_shape(const std::string& text, const std::string& where) {
  ort::Shape shape;
  std::string inner = text.substr(1, text.size() - 2);
  std::stringstream ss(inner);
  std::string part;
  while (std::getline(ss, part, ',')) {
    if (part.find_first_not_of(' ') == std::string::npos) continue;
    try {
      shape.push_back(std::stoll(part));
    } catch (const std::exception&) {
      fail(ErrorCode::kParse, where, "npy shape {} is malformed", text);
    }
  }
  return shape;
}

}  // namespace

ort::Tensor read_npy(const std::filesystem::path& path) {
  const std::string where = path.string();
  const std::string bytes = read_file(path);
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) fail(ErrorCode::kParse, where, "not a .npy file");
  const int major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail(ErrorCode::kParse, where, "truncated .npy header");
    for (int i = 0; i < 4; ++i) header_len |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    fail(ErrorCode::kUnsupported, where, ".npy format version {} is not read", major);
  }
  if (offset + header_len > bytes.size()) fail(ErrorCode::kParse, where, "truncated .npy header");
  const std::string header = bytes.substr(offset, header_len);
  if (field(header, "fortran_order", where) != "False")
    fail(ErrorCode::kUnsupported, where, "Fortran-order .npy arrays are not read");
  const DataType dtype = descr_type(field(header, "descr", where), where);
  const ort::Shape shape = parse_shape(field(header, "shape", where), where);
  const std::size_t need = static_cast<std::size_t>(ort::element_count(shape)) * dtype_size(dtype);
  const std::size_t data_at = offset + header_len;
  if (bytes.size() - data_at != need)
    fail(ErrorCode::kParse, where, ".npy data holds {} bytes; shape {} needs {}", bytes.size() - data_at,
         ort::shape_string(shape), need);
  ort::Tensor t = ort::Tensor::allocate(dtype, shape);
  if (need) std::memcpy(t.raw_data(), bytes.data() + data_at, need);
  return t;
}

}  // namespace ogai::workflow
