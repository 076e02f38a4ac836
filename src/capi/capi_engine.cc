// The batched engine in the C API: an ogai::Engine behind a handle, requests as GenerationHandles.
#include "capi_internal.h"

using ogai::capi::fail;
using ogai::capi::guarded;
using ogai::capi::null_argument;

extern "C" {

ogai_status ogai_engine_create(ogai_model* model, int32_t max_sequences, ogai_engine** engine) {
  if (model == nullptr) return null_argument("model");
  if (engine == nullptr) return null_argument("engine");
  return guarded([&] {
    ogai::EngineOptions options;
    if (max_sequences != 0) options.max_sequences = max_sequences;
    auto out = std::make_unique<ogai_engine>();
    out->engine = std::make_shared<ogai::Engine>(model->model, options);
    *engine = out.release();
    return OGAI_OK;
  });
}

void ogai_engine_free(ogai_engine* engine) { delete engine; }

ogai_status ogai_engine_submit(ogai_engine* engine, const char* prompt, const ogai_options* options,
                               ogai_token_callback on_token, void* user_data, ogai_request** request) {
  if (engine == nullptr) return null_argument("engine");
  if (prompt == nullptr) return null_argument("prompt");
  if (request == nullptr) return null_argument("request");
  return guarded([&] {
    auto out = std::make_unique<ogai_request>();
    out->callback = std::make_shared<ogai::capi::CallbackTarget>(on_token, user_data);
    const ogai::GenerationOptions defaults = ogai::capi::front_end_options();
    out->handle = engine->engine->submit(std::string_view(prompt), options ? options->options : defaults,
                                         ogai::capi::stream_callback(out->callback));
    *request = out.release();
    return OGAI_OK;
  });
}

ogai_status ogai_engine_submit_ids(ogai_engine* engine, const int32_t* ids, size_t count, const ogai_options* options,
                                   ogai_token_callback on_token, void* user_data, ogai_request** request) {
  if (engine == nullptr) return null_argument("engine");
  if (ids == nullptr && count > 0) return null_argument("ids");
  if (request == nullptr) return null_argument("request");
  return guarded([&] {
    auto out = std::make_unique<ogai_request>();
    out->callback = std::make_shared<ogai::capi::CallbackTarget>(on_token, user_data);
    const ogai::GenerationOptions defaults = ogai::capi::front_end_options();
    out->handle = engine->engine->submit(std::span<const std::int32_t>(ids, count), options ? options->options : defaults,
                                         ogai::capi::stream_callback(out->callback));
    *request = out.release();
    return OGAI_OK;
  });
}

ogai_status ogai_request_wait(ogai_request* request, ogai_result** result) {
  if (request == nullptr) return null_argument("request");
  if (result == nullptr) return null_argument("result");
  if (request->waited) return fail(OGAI_INVALID_ARGUMENT, "request: already waited for (wait once per request)");
  request->waited = true;
  return guarded([&] {
    auto out = std::make_unique<ogai_result>();
    out->result = request->handle->wait();
    *result = out.release();
    return OGAI_OK;
  });
}

ogai_status ogai_request_cancel(ogai_request* request) {
  if (request == nullptr) return null_argument("request");
  return guarded([&] {
    request->handle->cancel();
    return OGAI_OK;
  });
}

void ogai_request_free(ogai_request* request) {
  if (request == nullptr) return;
  request->callback->detach();
  try {
    request->handle->cancel();
  } catch (...) {
    // cancel only flags the request; nothing to report from a free function
  }
  delete request;
}

}  // extern "C"
