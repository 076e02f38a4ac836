// libFuzzer target: arbitrary bytes as a model's reply to `ogai parse-reply` (and the server's
// tool-call parsing), through every built-in response template. The first byte picks the template
// and where the reply is cut into two feeds (streaming); the rest is the reply. The parsed message
// is printed as `parse-reply` prints it. Seeds: replies in each template's syntax, some with
// tool-call arguments nested past the depth budget (issue 37: 100,000 levels crashed the printer).
#include <string>

#include "chat/reply/builtin_templates.h"
#include "chat/reply/response_parser.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto& names = ogai::chat::reply::builtin_template_names();
  const std::string& name = names[data[0] % names.size()];
  const bool think = (data[0] / names.size()) % 2 == 1;
  const std::string_view reply = ogai::fuzz::as_text(data + 1, size - 1);
  const std::size_t cut = reply.size() * (data[0] % 7) / 6;
  ogai::fuzz::expect_only_ogai_errors([&] {
    ogai::chat::reply::ResponseParser parser(ogai::chat::reply::builtin_template(name, think), "");
    parser.feed(reply.substr(0, cut));
    parser.feed(reply.substr(cut));
    parser.finish();
    (void)parser.message().dump(-1, ' ', false, ogai::chat::reply::Json::error_handler_t::replace);
  });
  return 0;
}
