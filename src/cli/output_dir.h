// Writing a run's files into `--output-dir DIR` without ever replacing what is there: every
// target is checked before the first byte is written (an existing one is refused naming it, and
// nothing is written), then each file is created exclusively (O_CREAT | O_EXCL), so a file that
// appears in between is refused too. Subfolders of a relative path (video/frame-0001.png) are
// created. Paths must be relative and stay inside DIR. Prints each written path on stderr.
// Not thread-safe against another writer of the same folder beyond the exclusive create.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ogai::cli {

struct OutputFile {
  std::string path;  // relative to the folder
  std::vector<std::uint8_t> bytes;
};

// Throws ogai::Error (kInvalidArgument naming `--output-dir` and the path) on an existing file,
// an unsafe path or a failed write.
void write_output_files(const std::string& dir, const std::vector<OutputFile>& files);

}  // namespace ogai::cli
