// Private to src/ort: Location <-> OrtMemoryInfo.
#pragma once

#include "ort/location.h"
#include "ort/ort_api.h"

namespace ogai::ort {

// ORT's description of `location` (device allocator, default memory type); one per location,
// created on first use and kept for the process. Thread-safe.
const OrtMemoryInfo* memory_info(Location location);
// Where memory described by `info` lives (pinned host memory counts as host).
Location location_of(const OrtMemoryInfo* info);

}  // namespace ogai::ort
