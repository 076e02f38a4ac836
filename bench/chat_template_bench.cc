// Rendering a 10-turn conversation (system prompt, ten user/assistant exchanges, a final user
// turn) with the Qwen2.5 and Gemma chat templates: ogai vs @huggingface/jinja (Node.js, run by
// this program through tests/peers/run_node.sh), in one run. Checks both render the same text,
// prints the time per render of each and the ratio. Goal: ogai at least 10x faster.
//   chat_template_bench [--iterations N]
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "base/file.h"
#include "bench/bench_util.h"
#include "chat/chat_template.h"

namespace {

using ogai::chat::Json;
namespace fs = std::filesystem;

Json ten_turns(bool system) {
  Json m = Json::array();
  if (system) m.push_back({{"role", "system"}, {"content", "You are a helpful assistant. Answer concisely."}});
  for (int i = 0; i < 10; ++i) {
    m.push_back({{"role", "user"}, {"content", "Question " + std::to_string(i) + ": how do I sort a list of tuples by their second element in Python?"}});
    m.push_back({{"role", "assistant"}, {"content", "Use sorted(items, key=lambda t: t[1]); for turn " + std::to_string(i) + " that is all."}});
  }
  m.push_back({{"role", "user"}, {"content", "Thanks! One more question: what about descending order?"}});
  return m;
}

std::string run_peer(const fs::path& cases, int iterations, int runs) {
  std::string command = std::string(OGAI_SOURCE_DIR) + "/tests/peers/run_node.sh " + OGAI_SOURCE_DIR +
                        "/bench/chat_template_peer.cjs " + cases.string() + " " + std::to_string(iterations) + " " +
                        std::to_string(runs);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string out;
  char buf[65536];
  for (std::size_t n; pipe && (n = std::fread(buf, 1, sizeof buf, pipe.get())) > 0;) out.append(buf, n);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = 2000, runs = 5;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--iterations") iterations = std::atoi(argv[++i]);
  const fs::path shared = fs::path(OGAI_SHARED_DIR) / "chat_templates";
  struct Case {
    const char* name;
    fs::path source;
    bool system;
  } cases[] = {{"qwen2.5", shared / "qwen2.5.tokenizer_config.json", true}, {"gemma", shared / "gemma.tokenizer_config.json", false}};

  Json peer_cases = Json::array();
  std::vector<ogai::chat::ChatTemplate> templates;
  std::vector<ogai::chat::ChatRequest> requests;
  for (const Case& c : cases) {
    templates.push_back(ogai::chat::ChatTemplate::load(c.source));
    ogai::chat::ChatRequest r;
    r.messages = ten_turns(c.system);
    r.add_generation_prompt = true;
    requests.push_back(r);
    Json context = {{"messages", r.messages}, {"add_generation_prompt", true}, {"tools", nullptr}, {"documents", nullptr}};
    for (const auto& [k, v] : templates.back().special_tokens().items()) context[k] = v;
    peer_cases.push_back({{"name", c.name}, {"template", templates.back().select(r).source()}, {"context", context}});
  }
  fs::path file = fs::temp_directory_path() / "ogai_chat_template_bench.json";
  ogai::write_file(file, peer_cases.dump());
  Json peer = Json::parse(run_peer(file, iterations, runs));

  bool all_ok = true;
  double ogai_total = 0, peer_total = 0;
  std::printf("%-10s %14s %18s %8s\n", "template", "ogai ns/render", "@hf/jinja ns/render", "ratio");
  for (std::size_t i = 0; i < templates.size(); ++i) {
    std::string text;
    double seconds = ogai::bench::time_best(runs, [&] {
      for (int k = 0; k < iterations; ++k) text = templates[i].render(requests[i]);
    });
    double ogai_ns = seconds * 1e9 / iterations, peer_ns = peer[cases[i].name]["ns"].get<double>();
    bool same = text == peer[cases[i].name]["output"].get<std::string>();
    all_ok &= same;
    ogai_total += ogai_ns;
    peer_total += peer_ns;
    std::printf("%-10s %14.0f %18.0f %7.1fx%s\n", cases[i].name, ogai_ns, peer_ns, peer_ns / ogai_ns,
                same ? "" : "  OUTPUT DIFFERS");
  }
  double ratio = peer_total / ogai_total;
  std::printf("overall: ogai is %.1fx faster than @huggingface/jinja (goal >= 10x)\n", ratio);
  return all_ok && ratio >= 10 ? 0 : 1;
}
