#include "cases.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace ogai::media::testing {

const std::filesystem::path& cases_dir() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path d = std::filesystem::path(OGAI_BINARY_DIR) / "media_cases";
    const std::string cmd = std::string("/usr/bin/python3 ") + OGAI_SOURCE_DIR + "/tests/media/pillow_cases.py " +
                            d.string() + " >/dev/null";
    if (std::system(cmd.c_str()) != 0) ADD_FAILURE() << "the Pillow oracle failed: " << cmd;
    return d;
  }();
  return dir;
}

const nlohmann::json& manifest() {
  static const nlohmann::json m = [] {
    std::ifstream in(cases_dir() / "manifest.json");
    return nlohmann::json::parse(in);
  }();
  return m;
}

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace ogai::media::testing
