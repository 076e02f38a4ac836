// Generation options in the C API: a GenerationOptions behind a handle. Values are stored as
// given and checked by the C++ API when generation starts (one set of range rules).
#include "capi_internal.h"

#include <cstring>
#include <string_view>
#include <variant>

#include "ogai/sampling_fields.h"

using ogai::capi::guarded;
using ogai::capi::null_argument;

namespace {

// Sets one field of `options` through `set`, after the NULL check every setter shares.
template <typename Set>
ogai_status set_option(ogai_options* options, Set&& set) {
  if (options == nullptr) return null_argument("options");
  return guarded([&] {
    set(options->options);
    return OGAI_OK;
  });
}

}  // namespace

extern "C" {

ogai_status ogai_options_create(ogai_options** options) {
  if (options == nullptr) return null_argument("options");
  return guarded([&] {
    *options = new ogai_options();
    return OGAI_OK;
  });
}

void ogai_options_free(ogai_options* options) { delete options; }

ogai_status ogai_options_set_max_new_tokens(ogai_options* options, int32_t max_new_tokens) {
  return set_option(options, [&](ogai::GenerationOptions& o) { o.max_new_tokens = max_new_tokens; });
}

ogai_status ogai_options_set_temperature(ogai_options* options, float temperature) {
  return set_option(options, [&](ogai::GenerationOptions& o) { o.sampling.temperature = temperature; });
}

ogai_status ogai_options_set_top_k(ogai_options* options, int32_t top_k) {
  return set_option(options, [&](ogai::GenerationOptions& o) { o.sampling.top_k = top_k; });
}

ogai_status ogai_options_set_top_p(ogai_options* options, float top_p) {
  return set_option(options, [&](ogai::GenerationOptions& o) { o.sampling.top_p = top_p; });
}

ogai_status ogai_options_set_seed(ogai_options* options, uint64_t seed) {
  return set_option(options, [&](ogai::GenerationOptions& o) { o.sampling.seed = seed; });
}

ogai_status ogai_options_set_add_special_tokens(ogai_options* options, int add_special_tokens) {
  return set_option(options, [&](ogai::GenerationOptions& o) { o.add_special_tokens = add_special_tokens != 0; });
}

ogai_status ogai_options_add_stop(ogai_options* options, const char* stop) {
  if (stop == nullptr) return null_argument("stop");
  return set_option(options, [&](ogai::GenerationOptions& o) { o.stop.emplace_back(stop); });
}

ogai_status ogai_options_set_sampling(ogai_options* options, const char* name, double value) {
  if (name == nullptr) return null_argument("name");
  return set_option(options, [&](ogai::GenerationOptions& o) {
    for (const ogai::SamplingField& field : ogai::kSamplingFields) {
      if (field.name != name) continue;
      std::visit([&](auto member) {
        using T = typename std::remove_reference_t<decltype(o.sampling.*member)>::value_type;
        o.sampling.*member = static_cast<T>(value);
      }, field.member);
      return;
    }
    throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "name",
                      std::string("'") + name + "' is not a sampling field (ogai/sampling_fields.h)");
  });
}

ogai_status ogai_options_set_truncate_prompt(ogai_options* options, int truncate_prompt) {
  return set_option(options, [&](ogai::GenerationOptions& o) { o.truncate_prompt = truncate_prompt != 0; });
}

ogai_status ogai_options_set_response_format(ogai_options* options, const char* type, const char* text) {
  if (type == nullptr) return null_argument("type");
  return set_option(options, [&](ogai::GenerationOptions& o) {
    using Kind = ogai::ResponseFormat::Kind;
    const std::string_view t = type;
    if (t == "text") {
      o.response_format.reset();
      return;
    }
    ogai::ResponseFormat f;
    if (t == "json_object") f.kind = Kind::kJsonObject;
    else if (t == "json_schema") f.kind = Kind::kJsonSchema;
    else if (t == "regex") f.kind = Kind::kRegex;
    else if (t == "grammar") f.kind = Kind::kGrammar;
    else
      throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "type",
                        "'" + std::string(t) + "' is not one of text, json_object, json_schema, regex, grammar");
    if (f.kind != Kind::kJsonObject) {
      if (text == nullptr) throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "text", "is NULL (" + std::string(t) + " needs it)");
      f.text = text;
    }
    o.response_format = std::move(f);
  });
}

ogai_status ogai_options_add_media(ogai_options* options, ogai_media_kind kind, const void* data, size_t size,
                                   const char* mime) {
  if (data == nullptr && size > 0) return null_argument("data");
  return set_option(options, [&](ogai::GenerationOptions& o) {
    if (kind != OGAI_MEDIA_IMAGE && kind != OGAI_MEDIA_AUDIO)
      throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "kind",
                        "expected OGAI_MEDIA_IMAGE (0) or OGAI_MEDIA_AUDIO (1), got " + std::to_string(kind));
    ogai::MediaInput m;
    m.kind = kind == OGAI_MEDIA_IMAGE ? ogai::MediaInput::Kind::kImage : ogai::MediaInput::Kind::kAudio;
    m.bytes.assign(static_cast<const char*>(data), size);
    m.mime = mime ? mime : "";
    m.origin = "media[" + std::to_string(o.media.size()) + "]";
    o.media.push_back(std::move(m));
  });
}

ogai_status ogai_options_clear_media(ogai_options* options) {
  return set_option(options, [](ogai::GenerationOptions& o) { o.media.clear(); });
}

ogai_status ogai_options_set_logprobs(ogai_options* options, int32_t top) {
  return set_option(options, [&](ogai::GenerationOptions& o) {
    if (top < 0) o.logprobs.reset();
    else o.logprobs = top;
  });
}

}  // extern "C"
