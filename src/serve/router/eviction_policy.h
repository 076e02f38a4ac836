// The router's eviction rule (router/model_registry.h): which loaded models to unload so that one
// more fits under --models-max and the memory budget. Least recently used first, and only IDLE
// models (no request holding them): a model with requests in flight is never chosen, so when the
// idle ones do not free enough room the answer says so (`fits` false) and nothing is to be
// evicted. Pure function of its arguments; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ogai::serve::router {

// The bounds on what may be loaded at once; 0 = no bound.
struct ResidencyLimits {
  std::size_t max_loaded = 0;    // --models-max
  std::size_t memory_bytes = 0;  // --models-memory-mb, in bytes (measured as the packages' file sizes)
};

// A model that is loaded now.
struct Resident {
  std::string id;
  std::size_t bytes = 0;        // its measured size
  std::uint64_t last_used = 0;  // a logical clock: larger = used more recently
  int in_flight = 0;            // requests holding it
};

struct Room {
  bool fits = false;               // after evicting `evict`, the incoming model is within the limits
  std::vector<std::string> evict;  // ids, least recently used first; empty when !fits
};

// What to unload so that a model of `incoming_bytes` may join `loaded`. A model larger than the
// memory budget by itself never fits.
Room make_room(std::vector<Resident> loaded, std::size_t incoming_bytes, const ResidencyLimits& limits);

}  // namespace ogai::serve::router
