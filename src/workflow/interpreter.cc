#include "workflow/interpreter.h"

#include <algorithm>

#include "workflow/run.h"

namespace ogai::workflow {

RunResult run(const Program& program, RunRequest request, const EmitCallback& on_emit) {
  Run r(program, std::move(request), on_emit);
  while (r.step()) {
  }
  return r.result();
}

std::vector<std::pair<std::int64_t, const ort::Tensor*>> RunResult::rows(const std::string& output) const {
  std::vector<std::pair<std::int64_t, const ort::Tensor*>> out;
  const std::string prefix = output + ".row.";
  for (auto it = outputs.lower_bound(prefix); it != outputs.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    const std::string rest = it->first.substr(prefix.size());
    if (rest.empty() || rest.find_first_not_of("0123456789") != std::string::npos) continue;
    out.emplace_back(std::stoll(rest), &it->second);
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.first < b.first; });
  return out;
}

const ort::Tensor* RunResult::first(const std::string& output) const {
  if (auto it = outputs.find(output); it != outputs.end()) return &it->second;
  auto r = rows(output);
  return r.empty() ? nullptr : r.front().second;
}

}  // namespace ogai::workflow
