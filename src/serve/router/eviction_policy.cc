#include "serve/router/eviction_policy.h"

#include <algorithm>

namespace ogai::serve::router {
namespace {

bool within(std::size_t count, std::size_t bytes, const ResidencyLimits& limits) {
  return (limits.max_loaded == 0 || count <= limits.max_loaded) &&
         (limits.memory_bytes == 0 || bytes <= limits.memory_bytes);
}

}  // namespace

Room make_room(std::vector<Resident> loaded, std::size_t incoming_bytes, const ResidencyLimits& limits) {
  Room room;
  if (limits.memory_bytes != 0 && incoming_bytes > limits.memory_bytes) return room;
  std::size_t count = loaded.size() + 1;
  std::size_t bytes = incoming_bytes;
  for (const Resident& r : loaded) bytes += r.bytes;
  std::stable_sort(loaded.begin(), loaded.end(),
                   [](const Resident& a, const Resident& b) { return a.last_used < b.last_used; });
  for (const Resident& r : loaded) {
    if (within(count, bytes, limits)) break;
    if (r.in_flight > 0) continue;
    room.evict.push_back(r.id);
    --count;
    bytes -= r.bytes;
  }
  room.fits = within(count, bytes, limits);
  if (!room.fits) room.evict.clear();
  return room;
}

}  // namespace ogai::serve::router
