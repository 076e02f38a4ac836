// Private to src/ort: the state behind ort::Session.
#pragma once

#include "ort/ort_api.h"
#include "ort/session.h"

namespace ogai::ort {

struct Session::Impl {
  std::string origin;
  Ort::Session session{nullptr};
  std::vector<PortInfo> inputs;
  std::vector<PortInfo> outputs;
  Location device;  // where the session runs (host unless a CUDA provider was appended)
};

// Names the fed inputs whose type or rank differ from the graph's (ORT's message does not), each
// as "; input 'x' was fed …"; empty when all match.
std::string describe_mismatches(const Session& session, std::span<const std::string> names,
                                std::span<const Tensor* const> inputs);

}  // namespace ogai::ort
