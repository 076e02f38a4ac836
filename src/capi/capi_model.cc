// Models in the C API: load (with an Optimum folder's dtype variant), free, tokenize, detokenize.
#include <cstdlib>
#include <cstring>
#include <span>

#include "capi_internal.h"

using ogai::capi::copy_string;
using ogai::capi::guarded;
using ogai::capi::null_argument;

namespace {

// A malloc'ed copy of `ids` (NULL when empty), freed with ogai_ids_free.
int32_t* copy_ids(const std::vector<std::int32_t>& ids) {
  if (ids.empty()) return nullptr;
  auto* out = static_cast<int32_t*>(std::malloc(ids.size() * sizeof(int32_t)));
  if (out == nullptr) throw std::bad_alloc();
  std::memcpy(out, ids.data(), ids.size() * sizeof(int32_t));
  return out;
}

}  // namespace

extern "C" {

ogai_status ogai_model_load(const char* path, const char* execution_provider, ogai_model** model) {
  return ogai_model_load_dtype(path, execution_provider, nullptr, model);
}

ogai_status ogai_model_load_dtype(const char* path, const char* execution_provider, const char* dtype,
                                  ogai_model** model) {
  if (path == nullptr) return null_argument("path");
  if (model == nullptr) return null_argument("model");
  return guarded([&] {
    ogai::LoadOptions options;
    if (execution_provider != nullptr) options.execution_provider = execution_provider;
    if (dtype != nullptr) options.dtype = dtype;
    auto loaded = std::make_unique<ogai_model>();
    loaded->model = ogai::Model::load(path, options);
    *model = loaded.release();
    return OGAI_OK;
  });
}

void ogai_model_free(ogai_model* model) { delete model; }

ogai_status ogai_tokenize(const ogai_model* model, const char* text, int add_special_tokens, int32_t** ids,
                          size_t* count) {
  if (model == nullptr) return null_argument("model");
  if (text == nullptr) return null_argument("text");
  if (ids == nullptr) return null_argument("ids");
  if (count == nullptr) return null_argument("count");
  return guarded([&] {
    std::vector<std::int32_t> tokens = model->model->tokenize(text, add_special_tokens != 0);
    *ids = copy_ids(tokens);
    *count = tokens.size();
    return OGAI_OK;
  });
}

ogai_status ogai_detokenize(const ogai_model* model, const int32_t* ids, size_t count, int skip_special_tokens,
                            char** text) {
  if (model == nullptr) return null_argument("model");
  if (ids == nullptr && count > 0) return null_argument("ids");
  if (text == nullptr) return null_argument("text");
  return guarded([&] {
    std::span<const std::int32_t> span(ids, count);
    *text = copy_string(model->model->detokenize(span, skip_special_tokens != 0));
    return OGAI_OK;
  });
}

void ogai_ids_free(int32_t* ids) { std::free(ids); }

void ogai_string_free(char* text) { std::free(text); }

}  // extern "C"
