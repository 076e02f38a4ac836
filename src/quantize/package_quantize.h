// `ogai quantize`'s package-level work: every binary `.onnx` graph of a package directory is
// planned and, where something is eligible, rewritten (graph_quantize.h); every other file is
// copied. The result is assembled in a temporary directory beside DST (base/staged_output.h),
// checked by `verify`, and renamed into place only then, so a failure (a full disk, a refused
// plan, a stop signal) leaves no package or temporary behind. DST is replaced only when it is
// empty or, with `force`, a package ogai wrote; anything else there is refused, never deleted.
#pragma once

#include <filesystem>
#include <functional>
#include <vector>

#include "quantize/graph_quantize.h"

namespace ogai::quantize {

struct PackageReport {
  std::vector<GraphReport> graphs;  // in path order
  std::size_t files_copied = 0;
};

// Checks an assembled package directory; throws ogai::Error to refuse it.
using Verify = std::function<void(const std::filesystem::path& dir)>;

// Throws ogai::Error: SRC is not a directory (kNotFound), DST exists without `force` or is not
// a package ogai wrote (kInvalidArgument, naming what is there), no graph has anything eligible (kUnsupported, with the reasons), reading or
// writing failed (kRuntime / kParse), or `verify` refused the result.
PackageReport quantize_package(const std::filesystem::path& src, const std::filesystem::path& dst,
                               const QuantizeOptions& options, bool force, const Progress& progress,
                               const Verify& verify);

}  // namespace ogai::quantize
