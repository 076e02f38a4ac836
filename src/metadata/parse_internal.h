// Internal: the per-area readers behind parse_document().
#pragma once

#include "metadata/document.h"
#include "metadata/reader.h"

namespace ogai::metadata::detail {

TensorContract read_contract(Reader& r, const Node* node, const std::string& path);
Workflow read_workflow(Reader& r, const Node& node, const std::string& path);
std::vector<Step> read_steps(Reader& r, const Node* node, const std::string& path);
Serving read_serving(Reader& r, const Node& node, const std::string& path);
Model read_model(Reader& r, const Node& node, const std::string& path);
Speculative read_speculative(Reader& r, const Node& node, const std::string& path);
Adapters read_adapters(Reader& r, const Node& node, const std::string& path);

}  // namespace ogai::metadata::detail
