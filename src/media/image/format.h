// Image container detection from the first bytes (the signature), never from a file name or a
// declared MIME type.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace ogai::media {

enum class ImageFormat { kPng, kJpeg, kWebp, kGif, kBmp };

const char* format_name(ImageFormat format);  // "PNG", "JPEG", ...
std::optional<ImageFormat> sniff_image_format(std::span<const std::uint8_t> bytes);
// Up to 8 leading bytes in hex, for errors about unknown content.
std::string leading_bytes_hex(std::span<const std::uint8_t> bytes);

}  // namespace ogai::media
