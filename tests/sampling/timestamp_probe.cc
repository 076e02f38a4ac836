// timestamp_probe: ogai's Whisper timestamp rules (sampling/timestamp_rules.h) on cases read as
// JSON from stdin, for the differential test against transformers.js (hf_whisper_timestamps.cjs).
//   input:  [{"logits": [x or null for -inf, ...], "generated": [ids], "eos": 50,
//             "no_timestamps": 55, "max_initial": 3 or null}, ...]
//   output: [{"allowed": [ids], "greedy": id}, ...]
// "allowed": the ids the rules leave after the generated tokens; "greedy": a greedy Sampler's pick
// with the rules as its constraint, after accepting the generated tokens.
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sampling/sampler.h"
#include "sampling/timestamp_rules.h"

namespace {

using nlohmann::json;
using namespace ogai::sampling;

json run_case(const json& c) {
  std::vector<float> logits;
  for (const json& x : c.at("logits")) logits.push_back(x.is_null() ? -INFINITY : x.get<float>());
  TimestampRuleIds ids{c.at("eos").get<int>(), c.at("no_timestamps").get<int>(), std::nullopt};
  if (!c.at("max_initial").is_null()) ids.max_initial_index = c.at("max_initial").get<int>();
  auto rules = std::make_shared<TimestampRules>(ids);
  auto state = rules->start();
  SamplingParams p;
  p.do_sample = false;
  p.constraint = rules;
  Sampler sampler(p, static_cast<std::int64_t>(logits.size()));
  for (const json& t : c.at("generated")) {
    state->accept(t.get<int>());
    sampler.accept(t.get<int>());
  }
  const AllowedTokens allowed = state->allowed_at(logits);
  json out = json::array();
  for (std::size_t i = 0; i < logits.size(); ++i)
    if (allowed.allows(i)) out.push_back(i);
  std::vector<float> row = logits;
  return {{"allowed", out}, {"greedy", sampler.sample(row)}};
}

}  // namespace

int main() {
  const json cases = json::parse(std::cin);
  json out = json::array();
  for (const json& c : cases) out.push_back(run_case(c));
  std::cout << out.dump() << "\n";
  return 0;
}
