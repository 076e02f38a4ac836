// The Pillow oracle for the media tests: pillow_cases.py (Debian's /usr/bin/python3 with PIL)
// writes source images, Pillow's decodes and resizes and hostile files into the build folder
// once per test binary; cases() reads its manifest.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ogai::media::testing {

const std::filesystem::path& cases_dir();  // generated on first use
const nlohmann::json& manifest();
std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path);

}  // namespace ogai::media::testing
