// A batch's adapter selection by name: per row, the adapters (aliases of the document's
// `adapters.artifacts`) and their scales. Plain values; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace ogai::workflow {

struct LoraActivation {
  std::string alias;
  float scale = 1;
};
using LoraRows = std::vector<std::vector<LoraActivation>>;  // [batch][slot]

}  // namespace ogai::workflow
