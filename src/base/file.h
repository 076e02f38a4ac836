// Files: whole-file reads and read-only memory maps, with errors that name the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace ogai {

// Reads a whole file as bytes. Throws ogai::Error (kNotFound / kRuntime) naming the path.
std::string read_file(const std::filesystem::path& path);

// Writes bytes to a file, replacing it. Throws ogai::Error naming the path.
void write_file(const std::filesystem::path& path, std::string_view bytes);

// A read-only, private memory map of a whole file. Non-copyable; movable. An empty file maps to
// an empty view. Thread-safe for concurrent reads.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_), size_}; }
  const std::filesystem::path& path() const { return path_; }

 private:
  void release();
  std::filesystem::path path_;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace ogai
