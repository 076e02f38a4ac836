#include "media_convert.h"

#include <sys/stat.h>

#include <fstream>
#include <iterator>

namespace ogai::python {
namespace {

constexpr std::int64_t kMaxFileBytes = std::int64_t{256} << 20;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, where, what);
}

std::string read_media_file(const std::string& path, const std::string& where) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Error(ErrorCode::kNotFound, path, where + ": no such file");
  if (!S_ISREG(st.st_mode)) bad(path, where + ": not a regular file");
  if (st.st_size > kMaxFileBytes)
    bad(path, where + ": " + std::to_string(st.st_size) + " bytes, over the 256 MiB media file limit");
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) throw Error(ErrorCode::kRuntime, path, where + ": reading failed");
  return bytes;
}

MediaInput media_from(py::handle item, MediaInput::Kind kind, const std::string& where) {
  MediaInput m;
  m.kind = kind;
  if (PyBytes_Check(item.ptr()) || PyByteArray_Check(item.ptr()) || PyMemoryView_Check(item.ptr())) {
    m.bytes = py::bytes(py::reinterpret_borrow<py::object>(item)).cast<std::string>();
    m.origin = where;
  } else if (PyUnicode_Check(item.ptr()) || py::hasattr(item, "__fspath__")) {
    const std::string path = py::module_::import("os").attr("fsdecode")(item).cast<std::string>();
    m.bytes = read_media_file(path, where);
    m.origin = path;
  } else {
    throw py::type_error(where + " must be bytes (the encoded file) or a path, not " + Py_TYPE(item.ptr())->tp_name);
  }
  return m;
}

std::string part_type(py::dict d, const std::string& where) {
  if (!d.contains("type") || !PyUnicode_Check(d["type"].ptr())) bad(where + ".type", "expected a string");
  return d["type"].cast<std::string>();
}

}  // namespace

std::vector<MediaInput> media_list_from(const char* function, const char* name, MediaInput::Kind kind, py::handle value) {
  if (!py::isinstance<py::sequence>(value) || PyUnicode_Check(value.ptr()) || PyBytes_Check(value.ptr()))
    throw py::type_error(std::string(function) + "(): " + name + " must be a list of bytes or file paths");
  std::vector<MediaInput> out;
  std::size_t i = 0;
  for (py::handle item : value) out.push_back(media_from(item, kind, std::string(name) + "[" + std::to_string(i++) + "]"));
  return out;
}

std::vector<ContentPart> content_parts_from(py::handle content, const std::string& where) {
  std::vector<ContentPart> parts;
  std::size_t i = 0;
  for (py::handle item : content) {
    const std::string at = where + "[" + std::to_string(i++) + "]";
    if (!py::isinstance<py::dict>(item)) bad(at, "expected a {\"type\": ...} dict");
    py::dict d = py::reinterpret_borrow<py::dict>(item);
    const std::string type = part_type(d, at);
    ContentPart p;
    if (type == "text") {
      if (!d.contains("text") || !PyUnicode_Check(d["text"].ptr())) bad(at + ".text", "expected a string");
      p.text = d["text"].cast<std::string>();
    } else if (type == "image" || type == "audio") {
      const bool image = type == "image";
      p.kind = image ? ContentPart::Kind::kImage : ContentPart::Kind::kAudio;
      if (!d.contains(type.c_str())) bad(at + "." + type, "expected bytes (the encoded file) or a path");
      p.media = media_from(d[type.c_str()], image ? MediaInput::Kind::kImage : MediaInput::Kind::kAudio, at);
    } else {
      bad(at + ".type", "'" + type + "' is not one of text, image, audio");
    }
    parts.push_back(std::move(p));
  }
  return parts;
}

}  // namespace ogai::python
