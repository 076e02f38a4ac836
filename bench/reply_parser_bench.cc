// The reply parser's own time per generated token vs. one stories260k decode step, side by side
// in one process (issue 22's bound: the parser ≤ 1% of a decode step).
//   reply_parser_bench [--package DIR] [--runs N]
// Each run: a greedy decode of 200 tokens through Model::generate (Timings.decode_ms / tokens),
// then a Gemma-4 reply (thinking, content, parallel calls in Gemma-4's dialect) fed to the
// response-template parser in 4-byte pieces, as a streamed reply arrives (time per piece). The
// ratio is the median over the paired runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/api_decode.h"
#include "chat/reply/builtin_templates.h"
#include "chat/reply/response_parser.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string gemma_reply() {
  std::string r = "<|channel>thought\nThe user wants the weather in several cities; I will call the tool.<channel|>";
  r += "Let me look that up for you.";
  for (const char* city : {"Paris", "Tōkyō", "New \"York\"", "Zürich"})
    r += std::string("<|tool_call>call:get_weather{city:<|\"|>") + city +
         "<|\"|>,days:[1,2,3],opts:{unit:<|\"|>celsius<|\"|>,detail:true,limit:null}}<tool_call|>";
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string package = OGAI_PACKAGES_DIR "/stories260k";
  int runs = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--package") package = argv[i + 1];
    if (std::string(argv[i]) == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
  }
  auto model = ogai::Model::load(package);
  const auto prompt = ogai::bench::story_prompt(*model, 16);
  const auto tmpl = ogai::chat::reply::builtin_template("gemma4", false);
  const std::string reply = gemma_reply();
  constexpr std::size_t kPiece = 4;
  std::vector<double> ratios, steps, pieces;
  for (int r = 0; r < runs; ++r) {
    constexpr int kTokens = 200;
    const ogai::bench::ApiRun run = ogai::bench::run_api(*model, prompt, kTokens);
    const double step = run.decode_seconds / (kTokens - 1);
    const auto start = Clock::now();
    constexpr int kRepeats = 20;
    std::size_t fed = 0, calls = 0;
    for (int k = 0; k < kRepeats; ++k) {
      ogai::chat::reply::ResponseParser p(tmpl, "<|turn>model\n");
      for (std::size_t i = 0; i < reply.size(); i += kPiece, ++fed) p.feed(std::string_view(reply).substr(i, kPiece));
      p.finish();
      calls += p.reply().tool_calls.size();
    }
    const double piece = std::chrono::duration<double>(Clock::now() - start).count() / static_cast<double>(fed);
    if (calls != 4u * kRepeats) std::fprintf(stderr, "parsed %zu calls, expected %d\n", calls, 4 * kRepeats);
    steps.push_back(step);
    pieces.push_back(piece);
    ratios.push_back(piece / step);
  }
  std::printf("stories260k decode step: %.1f us (median of %d runs)\n", median(steps) * 1e6, runs);
  std::printf("reply parser, Gemma-4 reply in %zu-byte pieces: %.2f us per piece\n", kPiece, median(pieces) * 1e6);
  std::printf("parser / decode step: %.4f (%.2f%%; goal <= 1%%), median of paired runs\n", median(ratios),
              median(ratios) * 100);
  return 0;
}
