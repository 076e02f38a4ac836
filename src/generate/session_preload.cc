#include "generate/session_preload.h"

#include <cstdlib>
#include <string_view>

namespace ogai::generate {

SessionPreload::SessionPreload(const std::vector<std::filesystem::path>& graphs, const ort::SessionOptions& options) {
  for (const auto& graph : graphs) {
    if (graph.empty() || started_.count(graph)) continue;
    started_.emplace(graph, std::async(std::launch::async, [graph, options] { return ort::Session::open(graph, options); }));
  }
}

ort::Session SessionPreload::take(const std::filesystem::path& graph, const ort::SessionOptions& options) {
  const auto it = started_.find(graph);
  if (it == started_.end() || !it->second.valid()) return ort::Session::open(graph, options);
  return it->second.get();  // rethrows what opening it threw
}

bool SessionPreload::enabled() {
  const char* env = std::getenv("OGAI_PARALLEL_LOAD");
  return env == nullptr || std::string_view(env) != "0";
}

ort::Session open_graph(SessionPreload* preload, const std::filesystem::path& graph, const ort::SessionOptions& options) {
  return preload ? preload->take(graph, options) : ort::Session::open(graph, options);
}

}  // namespace ogai::generate
