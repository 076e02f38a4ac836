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

}  // namespace ogai::ort
