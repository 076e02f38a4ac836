// Test helper: renders many cases in one process for the differential tests.
//   ogai_chat_render_batch CASES.json  ->  prints a JSON array of results to stdout
// Each case is either {"template": TEXT, "variables": {...}} (a bare Template) or
// {"source": PATH, "request": {messages, tools, documents, add_generation_prompt, variables,
// template_name}} (a ChatTemplate loaded as `ogai template` loads it). Each result is
// {"ok": true, "output": TEXT} or {"ok": false, "error": MESSAGE}.
#include <cstdio>
#include <iostream>

#include "base/file.h"
#include "chat/chat_template.h"
#include "ogai/error.h"

namespace {

using ogai::chat::Json;

ogai::chat::ChatRequest request_from(const Json& r) {
  ogai::chat::ChatRequest req;
  if (r.contains("messages")) req.messages = r["messages"];
  if (r.contains("tools")) req.tools = r["tools"];
  if (r.contains("documents")) req.documents = r["documents"];
  req.add_generation_prompt = r.value("add_generation_prompt", false);
  if (r.contains("variables")) req.variables = r["variables"];
  req.template_name = r.value("template_name", std::string());
  return req;
}

Json render_case(const Json& c) {
  try {
    std::string out;
    if (c.contains("source")) {
      out = ogai::chat::ChatTemplate::load(c["source"].get<std::string>()).render(request_from(c["request"]));
    } else {
      auto t = ogai::chat::Template::parse(c["template"].get<std::string>(), "case");
      out = t.render(c.contains("variables") ? c["variables"] : Json::object());
    }
    return {{"ok", true}, {"output", out}};
  } catch (const ogai::Error& e) {
    return {{"ok", false}, {"error", e.what()}};
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ogai_chat_render_batch CASES.json\n");
    return 2;
  }
  Json cases = Json::parse(ogai::read_file(argv[1]));
  Json results = Json::array();
  for (const Json& c : cases) results.push_back(render_case(c));
  std::cout << results.dump(-1, ' ', false, Json::error_handler_t::replace);
  return 0;
}
