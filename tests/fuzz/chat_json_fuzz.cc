// libFuzzer target: arbitrary bytes as the chat JSON ogai reads (--messages, --tools,
// tokenizer_config.json): the bounded ordered-JSON parse, then the document as messages and as
// a tokenizer_config.json (special tokens, chat_template) rendered by a template that walks and
// prints every value. Seeds: the JSON files in ../shared/chat_templates and tests/data.
#include "base/json_parse.h"
#include "chat/chat_template.h"
#include "fuzz_support.h"

namespace {

constexpr const char* kWalker =
    "{%- macro show(v) -%}{%- if v is mapping -%}{%- for k, x in v.items() -%}{{ k }}={{ show(x) }};{%- endfor -%}"
    "{%- elif v is iterable and v is not string -%}[{%- for x in v -%}{{ show(x) }},{%- endfor -%}]"
    "{%- else -%}{{ v }}{%- endif -%}{%- endmacro -%}"
    "{%- for m in messages -%}{{ show(m) }}|{{ m|tojson }}|{{ m|string|length }}{%- endfor -%}{{ bos_token }}";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ogai::fuzz::expect_only_ogai_errors([&] {
    auto json = ogai::parse_json_bounded<ogai::chat::Json>(ogai::fuzz::as_text(data, size), "fuzz.json");
    ogai::fuzz::expect_only_ogai_errors([&] {
      ogai::chat::ChatTemplate walker = ogai::chat::ChatTemplate::from_string(kWalker, "walker");
      ogai::chat::ChatRequest r;
      r.messages = json.is_array() ? json : ogai::chat::Json::array({json});
      ogai::chat::RenderOptions options;
      options.limits.max_output_bytes = 1 << 20;
      options.limits.max_loop_iterations = 100000;
      (void)walker.render(r, options);
    });
    ogai::fuzz::expect_only_ogai_errors([&] {
      auto t = ogai::chat::ChatTemplate::from_config(json, "fuzz.json");
      ogai::chat::ChatRequest r;
      r.messages = ogai::chat::Json::parse(R"([{"role": "user", "content": "hi"}])");
      ogai::chat::RenderOptions options;
      options.limits.max_loop_iterations = 100000;
      (void)t.render(r, options);
    });
  });
  return 0;
}
