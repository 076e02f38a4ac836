// Generation on the calling thread and the result accessors of the C API.
#include "capi_internal.h"

using ogai::capi::guarded;
using ogai::capi::null_argument;

namespace ogai::capi {

bool CallbackTarget::call(const StreamEvent& event) {
  std::lock_guard<std::mutex> lock(mutex);
  if (detached) return false;
  return fn(user_data, event.token, event.text.data(), event.text.size()) != 0;
}

void CallbackTarget::detach() {
  std::lock_guard<std::mutex> lock(mutex);
  detached = true;
}

StreamCallback stream_callback(std::shared_ptr<CallbackTarget> target) {
  if (target->fn == nullptr) return {};
  return [target](const StreamEvent& event) { return target->call(event); };
}

}  // namespace ogai::capi

namespace {

ogai_finish_reason finish_reason_of(ogai::FinishReason reason) {
  switch (reason) {
    case ogai::FinishReason::kStop: return OGAI_FINISH_STOP;
    case ogai::FinishReason::kLength: return OGAI_FINISH_LENGTH;
    case ogai::FinishReason::kEos: return OGAI_FINISH_EOS;
    case ogai::FinishReason::kCancelled: return OGAI_FINISH_CANCELLED;
  }
  return OGAI_FINISH_CANCELLED;
}

ogai_status read_ids(const std::vector<std::int32_t>& source, const int32_t** ids, size_t* count) {
  if (ids == nullptr) return null_argument("ids");
  if (count == nullptr) return null_argument("count");
  *ids = source.empty() ? nullptr : source.data();
  *count = source.size();
  return OGAI_OK;
}

// Generated token `index`'s log-probabilities; ogai::Error when there are none there.
const ogai::TokenLogprobs& logprobs_at(const ogai::GenerationResult& r, size_t index) {
  if (r.logprobs.empty())
    throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "logprobs",
                      "none were recorded: ask with ogai_options_set_logprobs");
  if (index >= r.logprobs.size())
    throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "index",
                      std::to_string(index) + " is not below the " + std::to_string(r.logprobs.size()) + " generated tokens");
  return r.logprobs[index];
}

}  // namespace

extern "C" {

ogai_status ogai_generate(const ogai_model* model, const char* prompt, const ogai_options* options,
                          ogai_token_callback on_token, void* user_data, ogai_result** result) {
  if (model == nullptr) return null_argument("model");
  if (prompt == nullptr) return null_argument("prompt");
  if (result == nullptr) return null_argument("result");
  return guarded([&] {
    auto target = std::make_shared<ogai::capi::CallbackTarget>(on_token, user_data);
    const ogai::GenerationOptions defaults = ogai::capi::front_end_options();
    auto out = std::make_unique<ogai_result>();
    out->result = model->model->generate(prompt, options ? options->options : defaults,
                                         ogai::capi::stream_callback(target));
    *result = out.release();
    return OGAI_OK;
  });
}

ogai_status ogai_generate_ids(const ogai_model* model, const int32_t* ids, size_t count, const ogai_options* options,
                              ogai_token_callback on_token, void* user_data, ogai_result** result) {
  if (model == nullptr) return null_argument("model");
  if (ids == nullptr && count > 0) return null_argument("ids");
  if (result == nullptr) return null_argument("result");
  return guarded([&] {
    auto target = std::make_shared<ogai::capi::CallbackTarget>(on_token, user_data);
    const ogai::GenerationOptions defaults = ogai::capi::front_end_options();
    auto out = std::make_unique<ogai_result>();
    out->result = model->model->generate(std::span<const std::int32_t>(ids, count),
                                         options ? options->options : defaults, ogai::capi::stream_callback(target));
    *result = out.release();
    return OGAI_OK;
  });
}

ogai_status ogai_result_text(const ogai_result* result, const char** text, size_t* length) {
  if (result == nullptr) return null_argument("result");
  if (text == nullptr) return null_argument("text");
  *text = result->result.text.c_str();
  if (length != nullptr) *length = result->result.text.size();
  return OGAI_OK;
}

ogai_status ogai_result_ids(const ogai_result* result, const int32_t** ids, size_t* count) {
  if (result == nullptr) return null_argument("result");
  return read_ids(result->result.ids, ids, count);
}

ogai_status ogai_result_prompt_ids(const ogai_result* result, const int32_t** ids, size_t* count) {
  if (result == nullptr) return null_argument("result");
  return read_ids(result->result.prompt_ids, ids, count);
}

ogai_status ogai_result_logprob(const ogai_result* result, size_t index, float* logprob) {
  if (result == nullptr) return null_argument("result");
  if (logprob == nullptr) return null_argument("logprob");
  return guarded([&] {
    *logprob = logprobs_at(result->result, index).logprob;
    return OGAI_OK;
  });
}

ogai_status ogai_result_top_logprob(const ogai_result* result, size_t index, size_t rank, int32_t* id, float* logprob) {
  if (result == nullptr) return null_argument("result");
  if (id == nullptr) return null_argument("id");
  if (logprob == nullptr) return null_argument("logprob");
  return guarded([&] {
    const ogai::TokenLogprobs& at = logprobs_at(result->result, index);
    if (rank >= at.top.size())
      throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "rank",
                        std::to_string(rank) + " is not below the " + std::to_string(at.top.size()) + " alternatives kept");
    *id = at.top[rank].id;
    *logprob = at.top[rank].logprob;
    return OGAI_OK;
  });
}

ogai_status ogai_result_finish_reason(const ogai_result* result, ogai_finish_reason* reason) {
  if (result == nullptr) return null_argument("result");
  if (reason == nullptr) return null_argument("reason");
  *reason = finish_reason_of(result->result.finish_reason);
  return OGAI_OK;
}

void ogai_result_free(ogai_result* result) { delete result; }

}  // extern "C"
