// Workflows in the C API (ogai_c.h "Workflows"): load a package's workflow, run it with named
// inputs (JSON typed by the input's contract, raw tensor bytes, or a media file's bytes), and
// read what it emitted as JSON and its media outputs as encoded files (WAV, PNG), over
// ogai::Workflow (include/ogai/workflow.h).
#include <nlohmann/json.hpp>

#include <cstring>

#include "capi_internal.h"

using ogai::capi::guarded;
using ogai::capi::null_argument;

struct ogai_workflow {
  std::shared_ptr<const ogai::Workflow> workflow;
};

struct ogai_workflow_request {
  ogai::WorkflowRequest request;
};

struct ogai_workflow_result {
  ogai::WorkflowOutputs outputs;
  std::string json;                    // outputs as JSON, built once
  std::vector<ogai::MediaFile> media;  // encoded once
};

namespace {

// {"outputs": {KEY: {"dtype", "shape", "data"}}}; data as numbers (bool as 0/1).
template <class T>
nlohmann::json values_of(const ogai::TensorValue& v) {
  std::vector<T> out(v.data.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.data.data(), out.size() * sizeof(T));
  return out;
}

nlohmann::json tensor_json(const ogai::TensorValue& v) {
  nlohmann::json data;
  if (v.dtype == "float32") data = values_of<float>(v);
  else if (v.dtype == "float64") data = values_of<double>(v);
  else if (v.dtype == "int64") data = values_of<std::int64_t>(v);
  else if (v.dtype == "int32") data = values_of<std::int32_t>(v);
  else if (v.dtype == "uint8" || v.dtype == "bool") data = values_of<std::uint8_t>(v);
  else if (v.dtype == "int8") data = values_of<std::int8_t>(v);
  else data = nullptr;  // float16 / bfloat16 / others: read them through the C++ API
  return {{"dtype", v.dtype}, {"shape", v.shape}, {"data", std::move(data)}};
}

}  // namespace

extern "C" {

ogai_status ogai_workflow_load(const char* path, ogai_workflow** workflow) {
  if (path == nullptr) return null_argument("path");
  if (workflow == nullptr) return null_argument("workflow");
  return guarded([&] {
    auto loaded = std::make_unique<ogai_workflow>();
    loaded->workflow = ogai::Workflow::load(path);
    *workflow = loaded.release();
    return OGAI_OK;
  });
}

void ogai_workflow_free(ogai_workflow* workflow) { delete workflow; }

ogai_status ogai_workflow_request_create(ogai_workflow_request** request) {
  if (request == nullptr) return null_argument("request");
  return guarded([&] {
    *request = new ogai_workflow_request();
    return OGAI_OK;
  });
}

void ogai_workflow_request_free(ogai_workflow_request* request) { delete request; }

ogai_status ogai_workflow_request_set_json(ogai_workflow_request* request, const char* name, const char* json) {
  if (request == nullptr) return null_argument("request");
  if (name == nullptr) return null_argument("name");
  if (json == nullptr) return null_argument("json");
  return guarded([&] {
    request->request.json_inputs[name] = json;
    return OGAI_OK;
  });
}

ogai_status ogai_workflow_request_set_tensor(ogai_workflow_request* request, const char* name, const char* dtype,
                                             const int64_t* shape, size_t rank, const void* data, size_t size) {
  if (request == nullptr) return null_argument("request");
  if (name == nullptr) return null_argument("name");
  if (dtype == nullptr) return null_argument("dtype");
  if (shape == nullptr && rank > 0) return null_argument("shape");
  if (data == nullptr && size > 0) return null_argument("data");
  return guarded([&] {
    ogai::TensorValue v{dtype, {shape, shape + rank}, std::vector<std::byte>(size)};
    if (size) std::memcpy(v.data.data(), data, size);
    request->request.inputs[name] = std::move(v);
    return OGAI_OK;
  });
}

ogai_status ogai_workflow_request_set_media(ogai_workflow_request* request, const char* name, const void* data,
                                            size_t size) {
  if (request == nullptr) return null_argument("request");
  if (name == nullptr) return null_argument("name");
  if (data == nullptr && size > 0) return null_argument("data");
  return guarded([&] {
    request->request.inputs[name] = ogai::TensorValue::bytes(data, size);
    return OGAI_OK;
  });
}

ogai_status ogai_workflow_request_set_max_new_tokens(ogai_workflow_request* request, int64_t max_new_tokens) {
  if (request == nullptr) return null_argument("request");
  if (max_new_tokens < 0) return ogai::capi::fail(OGAI_INVALID_ARGUMENT, "max_new_tokens: must be >= 0");
  request->request.max_new_tokens = max_new_tokens;
  return OGAI_OK;
}

ogai_status ogai_workflow_request_set_seed(ogai_workflow_request* request, int64_t seed) {
  if (request == nullptr) return null_argument("request");
  request->request.seed = seed;
  return OGAI_OK;
}

ogai_status ogai_workflow_run(const ogai_workflow* workflow, const ogai_workflow_request* request,
                              ogai_workflow_result** result) {
  if (workflow == nullptr) return null_argument("workflow");
  if (request == nullptr) return null_argument("request");
  if (result == nullptr) return null_argument("result");
  return guarded([&] {
    auto out = std::make_unique<ogai_workflow_result>();
    out->outputs = workflow->workflow->run(request->request);
    nlohmann::json doc = {{"outputs", nlohmann::json::object()}};
    for (const auto& [key, value] : out->outputs.outputs) doc["outputs"][key] = tensor_json(value);
    for (const auto& [profile, rows] : out->outputs.transcriptions) {  // the CTC profiles' text
      auto& list = doc["transcriptions"][profile];
      list = nlohmann::json::array();
      for (const auto& row : rows) list.push_back({{"text", row.text}, {"ids", row.ids}});
    }
    out->json = doc.dump();
    out->media = workflow->workflow->encode_media(out->outputs);
    *result = out.release();
    return OGAI_OK;
  });
}

ogai_status ogai_workflow_result_json(const ogai_workflow_result* result, const char** json) {
  if (result == nullptr) return null_argument("result");
  if (json == nullptr) return null_argument("json");
  *json = result->json.c_str();
  return OGAI_OK;
}

ogai_status ogai_workflow_result_media_count(const ogai_workflow_result* result, size_t* count) {
  if (result == nullptr) return null_argument("result");
  if (count == nullptr) return null_argument("count");
  *count = result->media.size();
  return OGAI_OK;
}

ogai_status ogai_workflow_result_media(const ogai_workflow_result* result, size_t index, const char** path,
                                       const uint8_t** data, size_t* size) {
  if (result == nullptr) return null_argument("result");
  if (path == nullptr) return null_argument("path");
  if (data == nullptr) return null_argument("data");
  if (size == nullptr) return null_argument("size");
  if (index >= result->media.size())
    return ogai::capi::fail(OGAI_INVALID_ARGUMENT, "index: " + std::to_string(index) + " is not below the " +
                                                       std::to_string(result->media.size()) + " media files");
  const auto& file = result->media[index];
  *path = file.path.c_str();
  *data = file.bytes.data();
  *size = file.bytes.size();
  return OGAI_OK;
}

void ogai_workflow_result_free(ogai_workflow_result* result) { delete result; }

}  // extern "C"
