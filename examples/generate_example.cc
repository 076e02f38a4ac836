// generate_example: ogai's public API in one file. Loads a package, streams a greedy completion
// through the token callback, then prints the finish reason and the timings.
//   generate_example PACKAGE [PROMPT] [MAX_NEW_TOKENS]
// Output: the completion as it is generated, a newline, then three lines:
//   finish_reason: <stop|length|eos|cancelled>
//   tokens: prompt <n>, generated <n>
//   timings: load <ms> ms, prefill <ms> ms, ttft <ms> ms, decode <ms> ms, <tok/s> tok/s
// Exit codes: 0 ok, 1 ogai::Error (message on stderr), 2 usage.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "ogai/ogai.h"  // the only header an application needs

namespace {

int usage() {
  std::fprintf(stderr, "usage: generate_example PACKAGE [PROMPT] [MAX_NEW_TOKENS]\n");
  return 2;
}

// Prints each piece of text as soon as the model produces it; returning false would cancel.
bool print_piece(const ogai::StreamEvent& event) {
  std::fwrite(event.text.data(), 1, event.text.size(), stdout);
  std::fflush(stdout);
  return true;
}

void print_summary(const ogai::GenerationResult& result, double load_ms) {
  const ogai::Timings& t = result.timings;
  std::printf("\nfinish_reason: %s\n", ogai::finish_reason_name(result.finish_reason));
  std::printf("tokens: prompt %zu, generated %zu\n", result.prompt_ids.size(), result.ids.size());
  std::printf("timings: load %.2f ms, prefill %.2f ms, ttft %.2f ms, decode %.2f ms, %.1f tok/s\n", load_ms,
              t.prefill_ms, t.ttft_ms, t.decode_ms, t.decode_tok_s);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) return usage();
  const std::string prompt = argc > 2 ? argv[2] : "Once upon a time";
  int max_new_tokens = 40;
  if (argc > 3) {
    try {
      max_new_tokens = std::stoi(argv[3]);
    } catch (const std::exception&) {
      return usage();
    }
  }
  try {
    auto start = std::chrono::steady_clock::now();
    // LoadOptions choose the execution provider and threads, e.g. {.execution_provider = "cuda"}.
    std::shared_ptr<const ogai::Model> model = ogai::Model::load(argv[1], ogai::LoadOptions{});
    double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    ogai::GenerationOptions options;
    options.max_new_tokens = max_new_tokens;
    options.sampling.temperature = 0.0f;  // greedy; set a temperature and a seed to sample
    ogai::GenerationResult result = model->generate(prompt, options, print_piece);
    print_summary(result, load_ms);
  } catch (const ogai::Error& e) {
    std::fprintf(stderr, "generate_example: %s\n", e.what());
    return 1;
  }
  return 0;
}
