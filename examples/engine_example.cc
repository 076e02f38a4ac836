// Serving several prompts at once with ogai::Engine (continuous batching): each prompt is
// submitted from its own thread, the engine decodes them together, and each result is printed
// in submission order with the engine's batch statistics.
//   engine_example PACKAGE [MAX_NEW_TOKENS] PROMPT...
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "ogai/ogai.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: engine_example PACKAGE MAX_NEW_TOKENS PROMPT...\n");
    return 2;
  }
  char* end = nullptr;
  const long max_new = std::strtol(argv[2], &end, 10);
  if (*end != '\0' || max_new < 1) {
    std::fprintf(stderr, "engine_example: MAX_NEW_TOKENS must be a positive integer, got '%s'\n", argv[2]);
    return 2;
  }
  try {
    auto model = ogai::Model::load(argv[1]);
    ogai::Engine engine(model, {.max_sequences = 8});
    ogai::GenerationOptions options;
    options.max_new_tokens = static_cast<int>(max_new);
    std::vector<std::string> prompts(argv + 3, argv + argc);
    std::vector<std::shared_ptr<ogai::GenerationHandle>> handles(prompts.size());
    std::vector<std::thread> clients;
    for (std::size_t i = 0; i < prompts.size(); ++i)
      clients.emplace_back([&, i] { handles[i] = engine.submit(prompts[i], options); });
    for (auto& c : clients) c.join();
    for (std::size_t i = 0; i < prompts.size(); ++i) {
      ogai::GenerationResult r = handles[i]->wait();
      std::printf("[%zu] %s%s (%s, %zu tokens)\n", i, prompts[i].c_str(), r.text.c_str(),
                  ogai::finish_reason_name(r.finish_reason), r.ids.size());
    }
    ogai::EngineStats s = engine.stats();
    std::printf("engine: %llu decode steps, %llu rows, largest batch %lld\n",
                static_cast<unsigned long long>(s.steps), static_cast<unsigned long long>(s.decoded_rows),
                static_cast<long long>(s.max_batch));
  } catch (const ogai::Error& e) {
    std::fprintf(stderr, "engine_example: %s\n", e.what());
    return 1;
  }
  return 0;
}
