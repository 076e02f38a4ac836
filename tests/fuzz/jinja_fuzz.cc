// libFuzzer target: arbitrary bytes as a chat template, parsed and rendered with a small
// conversation (tools included) under tight render limits, so a hostile template can only fail
// with ogai::Error. Seeds: the templates in ../shared/chat_templates and tests/data packages.
#include "chat/chat_template.h"
#include "fuzz_support.h"

namespace {

const ogai::chat::ChatRequest& request() {
  static const ogai::chat::ChatRequest r = [] {
    ogai::chat::ChatRequest q;
    q.messages = ogai::chat::Json::parse(R"([{"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi <b>there</b>"},
        {"role": "assistant", "content": null, "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": 1}}}]},
        {"role": "tool", "content": "42", "tool_call_id": "c1"},
        {"role": "user", "content": [{"type": "text", "text": "and now?"}]}])");
    q.tools = ogai::chat::Json::parse(R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}])");
    q.add_generation_prompt = true;
    return q;
  }();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ogai::fuzz::expect_only_ogai_errors([&] {
    auto t = ogai::chat::ChatTemplate::from_string(ogai::fuzz::as_text(data, size), "fuzz.jinja");
    t.set_special_token("bos_token", "<s>");
    t.set_special_token("eos_token", "</s>");
    ogai::chat::RenderOptions options;
    options.limits.max_output_bytes = 1 << 20;
    options.limits.max_memory_bytes = 32 << 20;
    options.limits.max_loop_iterations = 100000;
    (void)t.render(request(), options);
  });
  return 0;
}
