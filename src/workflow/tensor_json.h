// Tensors as a user writes and reads them: a JSON scalar or nested array typed by a workflow
// input's contract (`ogai run --input NAME=JSON`), and the `{"dtype","shape","data"}` object of
// `ogai run --json`. Thread-safe (no shared state).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "metadata/workflow.h"
#include "ort/tensor.h"
#include "workflow/request.h"

namespace ogai::workflow {

// The workflow input named `name`, or the one whose application alias is `name`; nullptr if none.
const metadata::WorkflowInput* find_input(const metadata::Workflow& wf, const std::string& name);

// A nested rectangular array gives its own shape; a scalar fills the contract's shape (fixed dims
// as declared, symbolic dims 1: a rank-0 contract gives []). The dtype is the contract's.
ort::Tensor tensor_from_json(const nlohmann::json& value, const metadata::TensorContract& contract,
                             const std::string& what);

// {"dtype": "int64", "shape": [...], "data": [flat values]}.
nlohmann::json tensor_json(const ort::Tensor& tensor);
// {"outputs": {KEY: tensor_json, ...}} over every published key.
nlohmann::json outputs_json(const RunResult& result);

}  // namespace ogai::workflow
