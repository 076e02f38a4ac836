// The workflow interpreter's own cost: the `decoder` conformance fixture's loop run through
// workflow::run() vs. the same graphs called in the same order by a bare hand-written loop (one
// ort::Session per graph, values in local variables, no checks), in the same run. Prints the time
// per iteration of both and the interpreter's own time per iteration (outside ONNX Runtime), as a
// share of the interpreted iteration; the goal is <= 10%.
// Both sides run their sessions with the same intra-op thread count (default 1, as decode_bench:
// these graphs are tiny, and idle pool threads spinning on a shared machine would be charged to
// whichever side runs next).
//   workflow_bench [--tokens N] [--runs N] [--threads N]
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "ort/session.h"
#include "workflow/interpreter.h"

namespace {

using namespace ogai;
using ort::Tensor;
namespace fs = std::filesystem;

const fs::path kFixture = fs::path(OGAI_SHARED_DIR) / "conformance/metadata/fixtures/decoder";

Tensor i64(std::vector<std::int64_t> v, ort::Shape s) { return Tensor::copy_of(std::span<const std::int64_t>(v), s); }
Tensor f32(std::vector<float> v, ort::Shape s) { return Tensor::copy_of(std::span<const float>(v), s); }
Tensor flag(bool v) {
  Tensor t = Tensor::allocate(DataType::kBool, {1});
  t.span<bool>()[0] = v;
  return t;
}

struct Graphs {
  std::map<std::string, ort::Session> s;
  explicit Graphs(const ort::SessionOptions& options) {
    for (const char* name : {"decoder_state_initializer", "termination_batch_initializer", "last_token_logits",
                             "token_sampler", "token_to_slot", "generated_length_update", "token_state_update",
                             "termination", "cache_length_update", "decoder_step_update"})
      s.emplace(name, ort::Session::open(kFixture / "policies" / (std::string(name) + ".onnx.textproto"), options));
    s.emplace("model", ort::Session::open(kFixture / "model.onnx.textproto", options));
  }
  // Runs `graph` on (name, tensor) feeds; returns the named outputs in order.
  std::vector<Tensor> operator()(const std::string& graph, std::vector<std::pair<std::string, const Tensor*>> in,
                                 std::vector<std::string> out) const {
    std::vector<std::string> names;
    std::vector<const Tensor*> feeds;
    for (auto& [n, t] : in) names.push_back(n), feeds.push_back(t);
    return s.at(graph).run(names, feeds, out);
  }
};

// The bare loop: the fixture's steps written out (greedy, one row, prompt [4, 5]). Returns trips.
std::int64_t bare_loop(const Graphs& g, std::int64_t tokens) {
  Tensor ids = i64({4, 5}, {1, 2}), lengths = i64({-1}, {1}), max_it = i64({tokens}, {1});
  Tensor one = i64({1}, {1}), zero = i64({0}, {1}), eos = i64({127}, {1, 1}), row_max = i64({-1}, {1});
  Tensor temp = f32({0}, {1}), top_k = i64({1}, {1}), top_p = f32({1}, {1}), min_p = f32({0}, {1}),
         seed = i64({0}, {1});
  Tensor active = flag(true), done = flag(false);
  auto init = g("decoder_state_initializer",
                {{"prompt_tokens", &ids}, {"prompt_lengths", &lengths}, {"max_iterations", &max_it}},
                {"attention_mask", "token_slot", "generated_lengths", "cache_lengths", "position_ids",
                 "body_position_ids", "past_key_values.0.key"});
  auto pre = g("model",
               {{"input_ids", &ids},
                {"past_key_values.0.key", &init[6]},
                {"attention_mask", &init[0]},
                {"position_ids", &init[4]}},
               {"logits", "present.0.key"});
  auto tb = g("termination_batch_initializer",
              {{"input_eos_ids", &eos},
               {"input_eos_lengths", &one},
               {"input_max_iterations", &row_max},
               {"fallback_max_iterations", &max_it},
               {"active", &active}},
              {"row_eos_ids", "eos_lengths", "max_iterations"});
  Tensor logits = std::move(g("last_token_logits", {{"logits", &pre[0]}}, {"last_logits"})[0]);
  Tensor token = std::move(init[1]), gen = std::move(init[2]), cache_len = std::move(init[3]);
  Tensor mask = std::move(init[0]), pos = std::move(init[5]), cache = std::move(pre[1]), counter = i64({0}, {1});
  std::int64_t trips = 0;
  for (std::int64_t i = 0; i < tokens && active.span<bool>()[0]; ++i, ++trips) {
    auto s = g("token_sampler",
               {{"logits", &logits},
                {"temperature", &temp},
                {"top_k", &top_k},
                {"top_p", &top_p},
                {"min_p", &min_p},
                {"seed", &seed},
                {"counter", &counter},
                {"active", &active},
                {"done", &done}},
               {"token", "next_counter"});
    auto slot = g("token_to_slot", {{"token", &s[0]}}, {"slot"});
    auto next_gen = g("generated_length_update",
                      {{"left", &gen}, {"right", &one}, {"active", &active}, {"done", &done}}, {"total"});
    auto emitted = g("generated_length_update",
                     {{"left", &zero}, {"right", &one}, {"active", &active}, {"done", &done}}, {"total"});
    auto body_token = g("token_state_update",
                        {{"current", &token}, {"update", &slot[0]}, {"active", &active}, {"done", &done}}, {"next"});
    Tensor iteration = i64({i}, {1});
    auto t = g("termination",
               {{"tokens", &s[0]},
                {"eos_ids", &tb[0]},
                {"eos_lengths", &tb[1]},
                {"iteration", &iteration},
                {"max_iterations", &tb[2]},
                {"active", &active}},
               {"done", "continue", "next_active"});
    auto cl = g("cache_length_update", {{"left", &cache_len}, {"right", &one}, {"active", &active}, {"done", &done}},
                {"total"});
    auto acc =
        g("cache_length_update", {{"left", &zero}, {"right", &one}, {"active", &active}, {"done", &done}}, {"total"});
    auto step =
        g("decoder_step_update", {{"attention_mask", &mask}, {"logical_length", &cache_len}, {"position_ids", &pos}},
          {"next_attention_mask", "next_position_ids"});
    auto body = g("model",
                  {{"input_ids", &body_token[0]},
                   {"past_key_values.0.key", &cache},
                   {"attention_mask", &step[0]},
                   {"position_ids", &pos}},
                  {"logits", "present.0.key"});
    logits = std::move(g("last_token_logits", {{"logits", &body[0]}}, {"last_logits"})[0]);
    token = std::move(body_token[0]), gen = std::move(next_gen[0]), active = std::move(t[2]), done = std::move(t[0]);
    cache_len = std::move(cl[0]), counter = std::move(s[1]), mask = std::move(step[0]), pos = std::move(step[1]);
    cache = std::move(body[1]);
  }
  return trips;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t tokens = 64, runs = 20;
  ort::SessionOptions options;
  options.intra_op_threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--tokens")) tokens = std::stoll(argv[i + 1]);
    if (!std::strcmp(argv[i], "--runs")) runs = std::stoll(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) options.intra_op_threads = std::stoi(argv[i + 1]);
  }
  const workflow::Program program = workflow::load_program(kFixture, options);
  const Graphs graphs(options);
  auto interpreted = [&] {
    workflow::RunRequest r;
    r.prompt_tokens = std::vector<ogai::TokenId>{4, 5};
    r.max_new_tokens = tokens;
    return workflow::run(program, std::move(r)).stats;
  };
  interpreted();  // warm both paths
  bare_loop(graphs, tokens);
  double interp_total = 0, interp_ort = 0, bare_total = 0;
  std::int64_t interp_trips = 0, bare_trips = 0;
  for (std::int64_t r = 0; r < runs; ++r) {
    const auto stats = interpreted();
    interp_total += stats.total_seconds, interp_ort += stats.ort_seconds, interp_trips += stats.iterations;
    const auto t0 = std::chrono::steady_clock::now();
    bare_trips += bare_loop(graphs, tokens);
    bare_total += seconds_since(t0);
  }
  const double per_interp = interp_total / static_cast<double>(interp_trips) * 1e6;
  const double per_bare = bare_total / static_cast<double>(bare_trips) * 1e6;
  const double own = (interp_total - interp_ort) / static_cast<double>(interp_trips) * 1e6;
  fmt::print("decoder fixture, {} tokens x {} runs ({} and {} iterations)\n", tokens, runs, interp_trips, bare_trips);
  fmt::print("  interpreted   {:8.1f} us/iteration\n", per_interp);
  fmt::print("  bare ORT loop {:8.1f} us/iteration  (interpreted / bare = {:.3f})\n", per_bare, per_interp / per_bare);
  fmt::print("  interpreter's own time {:.1f} us/iteration = {:.1f}% of the iteration (goal <= 10%)\n", own,
             100.0 * own / per_interp);
  return 0;
}
