#include "bench/api_decode.h"

#include <algorithm>
#include <string>

#include "bench/bench_util.h"

namespace ogai::bench {

ApiRun run_api(const Model& model, const std::vector<std::int32_t>& prompt, int tokens) {
  GenerationOptions options;
  options.max_new_tokens = tokens;
  options.ignore_eos = true;
  options.sampling.do_sample = false;
  GenerationResult result;
  ApiRun run;
  run.call_seconds = time_once([&] { result = model.generate(prompt, options); });
  run.decode_seconds = result.timings.decode_ms / 1e3;
  run.tokens.assign(result.ids.begin(), result.ids.end());
  return run;
}

OwnTime own_time(const Model& model, const std::vector<std::int32_t>& prompt, int lead, int window) {
  GenerationOptions options;
  options.ignore_eos = true;
  options.sampling.do_sample = false;
  options.max_new_tokens = lead;
  OwnTime t;
  t.lead_ms = model.generate(prompt, options).timings.runtime_ms;
  options.max_new_tokens = lead + window;
  t.longer_ms = model.generate(prompt, options).timings.runtime_ms;
  return t;
}

std::vector<std::int32_t> story_prompt(const Model& model, int length) {
  const std::string sentence =
      "Once upon a time, there was a little girl named Lily. She loved to play outside in the park "
      "with her dog, and one day they found a big red ball under a tree. ";
  std::string text;
  std::vector<std::int32_t> ids;
  while (static_cast<int>(ids.size()) < length) {
    text += sentence;
    ids = model.tokenize(text, true);
  }
  ids.resize(static_cast<std::size_t>(length));
  return ids;
}

}  // namespace ogai::bench
