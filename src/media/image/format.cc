#include "media/image/format.h"

#include <cstring>

#include <fmt/format.h>

namespace ogai::media {
namespace {

bool starts_with(std::span<const std::uint8_t> bytes, std::size_t offset, const char* magic, std::size_t n) {
  return bytes.size() >= offset + n && std::memcmp(bytes.data() + offset, magic, n) == 0;
}

}  // namespace

const char* format_name(ImageFormat format) {
  switch (format) {
    case ImageFormat::kPng: return "PNG";
    case ImageFormat::kJpeg: return "JPEG";
    case ImageFormat::kWebp: return "WebP";
    case ImageFormat::kGif: return "GIF";
    case ImageFormat::kBmp: return "BMP";
  }
  return "?";
}

std::optional<ImageFormat> sniff_image_format(std::span<const std::uint8_t> bytes) {
  if (starts_with(bytes, 0, "\x89PNG\r\n\x1a\n", 8)) return ImageFormat::kPng;
  if (starts_with(bytes, 0, "\xff\xd8\xff", 3)) return ImageFormat::kJpeg;
  if (starts_with(bytes, 0, "RIFF", 4) && starts_with(bytes, 8, "WEBP", 4)) return ImageFormat::kWebp;
  if (starts_with(bytes, 0, "GIF87a", 6) || starts_with(bytes, 0, "GIF89a", 6)) return ImageFormat::kGif;
  if (starts_with(bytes, 0, "BM", 2)) return ImageFormat::kBmp;
  return std::nullopt;
}

std::string leading_bytes_hex(std::span<const std::uint8_t> bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < 8; ++i) out += fmt::format("{}{:02x}", i ? " " : "", bytes[i]);
  return out.empty() ? "(empty)" : out;
}

}  // namespace ogai::media
