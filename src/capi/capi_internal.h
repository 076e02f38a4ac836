// The C API's objects (the structs behind ogai_c.h's opaque handles) and its one exception
// boundary. Built over the public C++ API only: this stage sees include/, never src/.
#pragma once

#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "ogai/ogai.h"
#include "ogai/ogai_c.h"

struct ogai_model {
  std::shared_ptr<const ogai::Model> model;
};

namespace ogai::capi {
// Options as the C API starts them: every field unset, and sampling at the package's temperature,
// else 1, where neither the options nor the package decide (docs/cli.md#sampling-default).
inline ogai::GenerationOptions front_end_options() {
  ogai::GenerationOptions o;
  o.sampling.default_do_sample = true;
  return o;
}
}  // namespace ogai::capi

struct ogai_options {
  ogai::GenerationOptions options = ogai::capi::front_end_options();
};

struct ogai_result {
  ogai::GenerationResult result;
};

struct ogai_engine {
  std::shared_ptr<ogai::Engine> engine;
};

namespace ogai::capi {

// A C token callback and its user data, detachable: once detached (the request handle was freed)
// it is never called again, and detaching waits for a call in flight.
struct CallbackTarget {
  CallbackTarget(ogai_token_callback f, void* data) : fn(f), user_data(data) {}

  ogai_token_callback fn = nullptr;
  void* user_data = nullptr;
  std::mutex mutex;
  bool detached = false;

  bool call(const StreamEvent& event);
  void detach();
};

// A C++ StreamCallback that forwards to `target` (empty when target has no function).
StreamCallback stream_callback(std::shared_ptr<CallbackTarget> target);

// messages_json (OpenAI chat messages: role, content (null beside tool_calls), tool_calls,
// tool_call_id, name, reasoning_content, content parts) as ChatMessages; ogai::Error naming the
// element. Media parts take their clips from `media` (ogai_options_add_media's, in order per
// kind), which is emptied once every clip is in a part; with `media` null a media part is an error.
std::vector<ChatMessage> parse_messages(const char* messages_json, std::vector<MediaInput>* media = nullptr);

// A malloc'ed NUL-terminated copy of `text`, freed with ogai_string_free (throws bad_alloc).
char* copy_string(const std::string& text);

// Records `status` and `message` as this thread's last error and returns status.
ogai_status fail(ogai_status status, const std::string& message);
// OGAI_INVALID_ARGUMENT "<name>: must not be NULL".
ogai_status null_argument(const char* name);
// Maps the exception in flight to a status and records its message. Call only inside a catch.
ogai_status current_exception_status();

// Runs `body` (returning ogai_status) so that no exception escapes: the one boundary of the C API.
template <typename Body>
ogai_status guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return current_exception_status();
  }
}

}  // namespace ogai::capi

struct ogai_request {
  std::shared_ptr<ogai::GenerationHandle> handle;
  std::shared_ptr<ogai::capi::CallbackTarget> callback;
  bool waited = false;
};
