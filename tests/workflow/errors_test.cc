// Bad requests and bad workflows give a clear ogai::Error naming the value and the step; nothing
// crashes. Bad workflows are fixture copies with one edit of their inference_metadata.yaml.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support.h"

namespace ogai::workflow::testing {
namespace {

namespace fs = std::filesystem;

void replace_in(const fs::path& file, const std::string& from, const std::string& to) {
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  std::string s = text.str();
  const auto at = s.find(from);
  if (at == std::string::npos) throw std::runtime_error("edit not found: " + from);
  s.replace(at, from.size(), to);
  std::ofstream(file) << s;
}

// A copy of fixture `name` in a fresh folder with `from` replaced by `to` in `file` (default: its
// metadata).
fs::path edited(const std::string& name, const std::string& from, const std::string& to,
                const std::string& file = "inference_metadata.yaml") {
  static int counter = 0;
  const fs::path dir =
      fs::temp_directory_path() / ("ogai_wf_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::remove_all(dir);
  fs::copy(fixture(name), dir, fs::copy_options::recursive);
  for (auto& entry : fs::recursive_directory_iterator(dir))
    fs::permissions(entry.path(), fs::perms::owner_write, fs::perm_options::add);
  fs::permissions(dir, fs::perms::owner_write, fs::perm_options::add);
  replace_in(dir / file, from, to);
  return dir;
}

// Runs `f` and returns the ogai::Error's text ("" when nothing was thrown).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(text, needle) EXPECT_NE((text).find(needle), std::string::npos) << (text)

RunRequest decoder_request(std::int64_t max_new_tokens = 3) {
  RunRequest r;
  r.prompt_tokens = std::vector<TokenId>{4, 5};
  r.max_new_tokens = max_new_tokens;
  return r;
}

TEST(WorkflowErrors, MissingRequiredInput) {
  RunRequest r;
  r.max_new_tokens = 2;
  const auto e = error_of([&] { run(program("decoder"), std::move(r)); });
  EXPECT_HAS(e, "request.input_ids");
  EXPECT_HAS(e, "not supplied");
}

TEST(WorkflowErrors, WrongDtype) {
  RunRequest r;
  r.tensors.emplace("request.input_ids", f32({4, 5}, {1, 2}));
  r.max_new_tokens = 2;
  const auto e = error_of([&] { run(program("decoder"), std::move(r)); });
  EXPECT_HAS(e, "request.input_ids");
  EXPECT_HAS(e, "dtype float32");
}

TEST(WorkflowErrors, WrongRank) {
  RunRequest r;
  r.tensors.emplace("request.input_ids", i64({4, 5}));
  r.max_new_tokens = 2;
  const auto e = error_of([&] { run(program("decoder"), std::move(r)); });
  EXPECT_HAS(e, "request.input_ids");
  EXPECT_HAS(e, "rank");
}

TEST(WorkflowErrors, BatchSymbolConflict) {
  RunRequest r;
  r.tensors.emplace("request.input_ids", i64({1, 2, 3}, {1, 3}));
  r.tensors.emplace("write_indices", i64({0, 3}));
  r.tensors.emplace("active", boolean({true}));
  r.max_new_tokens = 1;
  const auto e = error_of([&] { run(program("static_cache"), std::move(r)); });
  EXPECT_HAS(e, "write_indices");
  EXPECT_HAS(e, "'batch'");
}

TEST(WorkflowErrors, UndeclaredTensor) {
  auto r = decoder_request();
  r.tensors.emplace("no.such.input", i64({1}));
  EXPECT_HAS(error_of([&] { run(program("decoder"), std::move(r)); }), "undeclared inputs: no.such.input");
}

TEST(WorkflowErrors, NegativeIterationLimit) {
  RunRequest r;
  r.tensors.emplace("request.input_ids", i64({1, 2, 3}, {1, 3}));
  r.tensors.emplace("write_indices", i64({0}));
  r.tensors.emplace("active", boolean({true}));
  r.tensors.emplace("request.max_iterations", i64({-1}));
  const auto e = error_of([&] { run(program("static_cache"), std::move(r)); });
  EXPECT_HAS(e, "pipeline.workflow.steps[0]");
  EXPECT_HAS(e, "max_iterations 'request.max_iterations'");
  EXPECT_HAS(e, "non-negative");
}

TEST(WorkflowErrors, BoundedCellOverItsMax) {
  const auto dir = edited("decoder", "default: 8192", "default: 4");
  const Program p = load_program(dir);
  const auto e = error_of([&] { run(p, decoder_request(6)); });
  EXPECT_HAS(e, "pipeline.workflow.steps[0]");
  EXPECT_HAS(e, "carried cell 'cache_0'");
  EXPECT_HAS(e, "over its max 4");
  fs::remove_all(dir);
}

// The decoder fixture's cache starts prompt + max_new_tokens wide, its prefill adds the prompt and
// every trip one more (digest §7: a zero past of that width; the synthetic model appends), so with
// max_context 20 and the prompt [4, 5]: 7 new tokens end at 4 + 7 + 7 = 18 and fit; 9 pass 20 in
// trip 8 (4 + 9 + 8 = 21). The standard and the reference fail the run there (no clamp, no early
// end); the error says which trip of how many failed and how many fit, and asks for fewer.
TEST(WorkflowErrors, BoundedCellPastItsMaxSaysWhichTripAndHowManyFit) {
  const auto dir = edited("decoder", "default: 8192", "default: 20");
  const Program p = load_program(dir);
  EXPECT_EQ(run(p, decoder_request(7)).outputs.at("tokens.row.0").element_count(), 7);
  const auto e = error_of([&] { run(p, decoder_request(9)); });
  EXPECT_HAS(e, "grows to 21 along axis 2, over its max 20 ('package.max_context')");
  EXPECT_HAS(e, "in trip 8 of the loop's 9 (max_iterations 'request.max_iterations')");
  EXPECT_HAS(e, "ask for fewer iterations");
  EXPECT_HAS(e, "this run's first 7 trips fit");
  fs::remove_all(dir);
}

TEST(WorkflowErrors, PolicyGraphReturnsTheWrongShape) {
  // token_to_slot's graph becomes an Identity that returns int64[batch] for its [batch, 1] port.
  const std::string graph = "policies/token_to_slot.onnx.textproto";
  const auto dir = edited("decoder", "    input: \"const_1d_0\"\n", "", graph);
  replace_in(dir / graph, "op_type: \"Unsqueeze\"", "op_type: \"Identity\"");
  replace_in(dir / graph,
             "name: \"slot\"\n    type {\n      tensor_type {\n        elem_type: 7\n        shape {\n          dim {\n"
             "            dim_param: \"batch\"\n          }\n          dim {\n            dim_value: 1\n          }\n  "
             "      }\n",
             "name: \"slot\"\n    type {\n      tensor_type {\n        elem_type: 7\n");
  std::string e = error_of([&] { run(load_program(dir), decoder_request()); });
  EXPECT_HAS(e, "steps[1]");
  EXPECT_HAS(e, "component 'token_to_slot'");
  EXPECT_HAS(e, "output port 'slot'");
  EXPECT_HAS(e, "value 'sample.slot'");
  EXPECT_HAS(e, "rank 1");
  fs::remove_all(dir);
}

TEST(WorkflowErrors, UnknownAdapterIsRefusedAtLoad) {
  auto dir = edited("speculative",
                    "      grammar_clone:\n        implementation:\n          kind: adapter\n"
                    "          abi: onnx-genai.grammar-guidance\n          version: '1'",
                    "      grammar_clone:\n        implementation:\n          kind: adapter\n"
                    "          abi: onnx-genai.grammar-guidance\n          version: '2'");
  const auto e = error_of([&] { load_program(dir); });
  EXPECT_FALSE(e.empty());
  EXPECT_HAS(e, "grammar_clone");
  fs::remove_all(dir);
}

TEST(WorkflowErrors, BadGrammarActionIsRefusedAtLoad) {
  auto dir = edited("speculative", "action: clone", "action: rewind");
  const auto e = error_of([&] { load_program(dir); });
  EXPECT_HAS(e, "grammar_clone");
  EXPECT_HAS(e, "rewind");
  fs::remove_all(dir);
}

TEST(WorkflowErrors, CarryThatChangesShape) {
  // The sampler's counter is fed back as `token`, an invariant [batch, 1] cell: rank changes.
  const auto dir = edited("decoder", "      - cell: token\n        next: token.body",
                          "      - cell: token\n        next: sample.next_counter");
  std::string e;
  try {
    e = error_of([&] { run(load_program(dir), decoder_request()); });
  } catch (...) {
    ADD_FAILURE() << "a non-ogai exception escaped";
  }
  EXPECT_FALSE(e.empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ogai::workflow::testing
