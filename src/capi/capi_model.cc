// Models in the C API: load (with an Optimum folder's dtype variant), free, tokenize, detokenize.
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <utility>

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

ogai::MediaLimits media_limits(const ogai_media_limits& c) {
  const std::pair<const char*, bool> checks[] = {
      {"max_media_parts", c.max_media_parts > 0},    {"max_media_bytes", c.max_media_bytes > 0},
      {"max_image_pixels", c.max_image_pixels > 0},  {"max_decoded_bytes", c.max_decoded_bytes > 0},
      {"max_audio_seconds", c.max_audio_seconds > 0}};
  for (const auto& [name, ok] : checks)
    if (!ok) throw ogai::Error(ogai::ErrorCode::kInvalidArgument, std::string("limits.") + name, "must be > 0");
  ogai::MediaLimits l;
  l.max_media_parts = static_cast<std::size_t>(c.max_media_parts);
  l.max_media_bytes = c.max_media_bytes;
  l.max_image_pixels = c.max_image_pixels;
  l.max_decoded_bytes = c.max_decoded_bytes;
  l.max_audio_seconds = c.max_audio_seconds;
  return l;
}

// The loads of the C API: the defaults, media budgets, an Optimum dtype variant.
ogai_status load_model(const char* path, const char* execution_provider, const ogai_media_limits* limits,
                       const char* dtype, ogai_model** model) {
  if (path == nullptr) return null_argument("path");
  if (model == nullptr) return null_argument("model");
  return guarded([&] {
    ogai::LoadOptions options;
    if (execution_provider != nullptr) options.execution_provider = execution_provider;
    if (limits != nullptr) options.media_limits = media_limits(*limits);
    if (dtype != nullptr) options.dtype = dtype;
    auto loaded = std::make_unique<ogai_model>();
    loaded->model = ogai::Model::load(path, options);
    *model = loaded.release();
    return OGAI_OK;
  });
}

}  // namespace

extern "C" {

void ogai_media_limits_default(ogai_media_limits* limits) {
  if (limits == nullptr) return;
  const ogai::MediaLimits d;
  *limits = {d.max_media_parts, d.max_media_bytes, d.max_image_pixels, d.max_decoded_bytes, d.max_audio_seconds};
}

ogai_status ogai_model_load(const char* path, const char* execution_provider, ogai_model** model) {
  return load_model(path, execution_provider, nullptr, nullptr, model);
}

ogai_status ogai_model_load_with_limits(const char* path, const char* execution_provider,
                                        const ogai_media_limits* limits, ogai_model** model) {
  return load_model(path, execution_provider, limits, nullptr, model);
}

ogai_status ogai_model_load_dtype(const char* path, const char* execution_provider, const char* dtype,
                                  ogai_model** model) {
  return load_model(path, execution_provider, nullptr, dtype, model);
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
