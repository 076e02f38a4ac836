// ONNX Runtime GenAI's own model folders (../shared/ortgenai, read in place), run by ogai as they
// are: each equals a bare ONNX Runtime loop that feeds the graph as genai_config.json says
// (ortgenai_loop.h) for 12 greedy ids, through `ogai generate --prompt-ids`, through the batched
// engine (4 rows joining at different steps) and through the prefix cache (a hit equals a miss).
// Covers int32 ids/positions/mask (tiny-qwen35-cuda, tiny-random-gpt2-fp32), float16 KV and
// logits with a shared past/present buffer and a CUDA provider option on the CPU
// (tiny-qwen35-cuda), GPT-2's combined [2, batch, heads, past, head_size] caches, and LFM2's
// convolution state replaced each step beside KV on the other layers.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/file.h"

#include "generate/engine.h"
#include "generate/model_impl.h"
#include "generate/prefix_cache.h"
#include "generate/sequence_factory.h"
#include "generate/session_settings.h"
#include "importer/ortgenai_loop.h"
#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
using Ids = std::vector<std::int32_t>;
constexpr int kTokens = 12;

fs::path folder(const std::string& name) { return fs::path(OGAI_SHARED_DIR) / "ortgenai" / name; }

std::shared_ptr<const Model> load(const std::string& name) {
  static std::map<std::string, std::shared_ptr<const Model>> models;
  auto& m = models[name];
  if (!m) m = Model::load(folder(name));
  return m;
}

Ids bare(const std::string& name, const Ids& prompt) {
  static std::map<std::string, std::unique_ptr<testing::GenaiBareLoop>> loops;
  auto& loop = loops[name];
  if (!loop) loop = std::make_unique<testing::GenaiBareLoop>(folder(name));
  return loop->greedy(prompt, kTokens);
}

GenerationOptions greedy() {
  GenerationOptions o;
  o.max_new_tokens = kTokens;
  o.ignore_eos = true;
  o.sampling.do_sample = false;
  return o;
}

// Prompts below 32 (dummy-decoder's vocabulary), different lengths.
const std::vector<Ids> kPrompts = {{5, 9, 3, 17, 11}, {7, 2}, {30, 1, 4, 4, 8, 19, 22, 6}, {12}};

std::string run_cli(const std::string& args) {
  const bool merged = args.ends_with("2>&1");
  const std::string command = std::string(OGAI_EXE) + " " + args + (merged ? "" : " 2>/dev/null");
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  pclose(pipe);
  return out;
}

// `--prompt-ids` errors name the element; a text prompt on a token-id package says what to pass;
// `ogai bench --prompt-ids` runs one.
TEST(OrtGenaiPromptIds, BadListsAndTextPromptsAreNamed) {
  const std::string lfm2 = folder("tiny-random-lfm2-fp32").string();
  EXPECT_NE(run_cli("generate " + lfm2 + " --prompt-ids '[1, \"a\"]' 2>&1").find("--prompt-ids: element 1 is \"a\""),
            std::string::npos);
  EXPECT_NE(run_cli("generate " + lfm2 + " --prompt-ids '[]' 2>&1").find("non-empty JSON array"), std::string::npos);
  EXPECT_NE(run_cli("generate " + lfm2 + " --prompt-ids '[5000]' 2>&1").find("token id 5000 is outside the vocabulary"),
            std::string::npos);
  EXPECT_NE(
      run_cli("generate " + lfm2 + " --prompt hello 2>&1").find("no tokenizer.json: give the prompt as token ids"),
      std::string::npos);
  const auto bench =
      nlohmann::json::parse(run_cli("bench " + lfm2 + " --prompt-ids '[1, 2, 3]' --gen 4 --runs 1 --json"));
  EXPECT_EQ(bench["prompt_len"], 3);
}

class OrtGenaiFolder : public ::testing::TestWithParam<std::string> {};

TEST_P(OrtGenaiFolder, GenerateWithPromptIdsEqualsTheBareLoop) {
  const Ids& prompt = kPrompts[0];
  const Ids reference = bare(GetParam(), prompt);
  ASSERT_EQ(reference.size(), static_cast<std::size_t>(kTokens));
  const std::string ids = nlohmann::json(prompt).dump();
  const std::string out = run_cli("generate " + folder(GetParam()).string() + " --prompt-ids '" + ids +
                                  "' --max-new-tokens 12 --ignore-eos --temperature 0 --json");
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["prompt_ids"].get<Ids>(), prompt) << "ids fed exactly, no BOS added";
  EXPECT_EQ(j["ids"].get<Ids>(), reference);
  if (!load(GetParam())->info().has_tokenizer) {  // plain output: the ids, space-separated
    std::string expected;
    for (auto id : reference) expected += (expected.empty() ? "" : " ") + std::to_string(id);
    EXPECT_EQ(run_cli("generate " + folder(GetParam()).string() + " --prompt-ids '" + ids +
                      "' --max-new-tokens 12 --ignore-eos --temperature 0"),
              expected);
  }
}

// Rows joining the engine before steps 0, 1, 3 and 6, prompts of different lengths.
TEST_P(OrtGenaiFolder, BatchedRowsJoiningAtDifferentStepsEqualTheBareLoop) {
  auto model = load(GetParam());
  const generate::SequenceModel sm = model->impl().sequence_model();
  generate::EngineLimits limits;
  limits.step_tokens = std::numeric_limits<std::size_t>::max();
  generate::Engine engine(sm, limits, nullptr);
  const int joins[] = {0, 1, 3, 6};
  std::vector<std::shared_ptr<generate::LiveSequence>> rows(kPrompts.size());
  std::size_t added = 0;
  std::size_t most_rows = 0;
  for (int step = 0; (added < rows.size() || !engine.idle()) && step < 1000; ++step) {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (joins[i] == step) {
        auto request = generate::resolve_request(greedy(), model->impl().config.generation,
                                                 static_cast<std::int64_t>(kPrompts[i].size()));
        rows[i] = generate::make_sequence({sm, request, kPrompts[i]});
        engine.add(rows[i]);
        ++added;
      }
    engine.step();
    most_rows = std::max(most_rows, static_cast<std::size_t>(engine.counters().max_batch));
  }
  EXPECT_GE(most_rows, 3u) << "rows decoded together";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_FALSE(rows[i]->error()) << "row " << i;
    EXPECT_EQ(rows[i]->result().ids, bare(GetParam(), kPrompts[i])) << "row " << i;
  }
}

// Speculative decoding (n-gram drafts verified in one multi-token step, rolled back on a miss)
// feeds the same dtypes and state; greedy output equals the bare loop.
TEST_P(OrtGenaiFolder, SpeculativeNgramEqualsTheBareLoop) {
  GenerationOptions o = greedy();
  o.speculative.drafter = SpeculativeOptions::Drafter::kNgram;
  o.speculative.max_draft_tokens = 3;
  for (const Ids& prompt : {kPrompts[1], kPrompts[2]}) {
    const GenerationResult r = load(GetParam())->generate(std::span<const std::int32_t>(prompt), o);
    EXPECT_EQ(r.ids, bare(GetParam(), prompt));
  }
}

// A finished sequence's state seeds a prompt that continues it (a hit: KV cut to the shared
// prefix, convolution state at the entry's exact length), and a prompt sharing only part of it;
// both equal the bare loop and a run without the cache.
TEST_P(OrtGenaiFolder, PrefixCacheHitEqualsMiss) {
  auto model = load(GetParam());
  const generate::SequenceModel sm = model->impl().sequence_model();
  generate::PrefixCache prefix(64u << 20);
  auto run = [&](const Ids& prompt) {
    generate::EngineLimits limits;
    limits.step_tokens = std::numeric_limits<std::size_t>::max();
    generate::Engine engine(sm, limits, &prefix);
    auto request =
        generate::resolve_request(greedy(), model->impl().config.generation, static_cast<std::int64_t>(prompt.size()));
    auto row = generate::make_sequence({sm, request, prompt});
    engine.add(row);
    for (int step = 0; !engine.idle() && step < 1000; ++step) engine.step();
    EXPECT_FALSE(row->error());
    return row->result();
  };
  const Ids first = kPrompts[0];
  const GenerationResult turn1 = run(first);
  ASSERT_EQ(prefix.stats().entries, 1u);
  Ids second = first;  // the whole first turn re-sent, then more
  second.insert(second.end(), turn1.ids.begin(), turn1.ids.end());
  second.insert(second.end(), {3, 14, 15});
  const GenerationResult hit = run(second);
  EXPECT_EQ(hit.cached_prompt_tokens, static_cast<std::int64_t>(first.size() + turn1.ids.size() - 1));
  EXPECT_EQ(hit.ids, bare(GetParam(), second));
  EXPECT_EQ(hit.ids, model->generate(std::span<const std::int32_t>(second), greedy()).ids);
  Ids partial = {first[0], first[1], 28, 29};
  const GenerationResult part = run(partial);
  EXPECT_EQ(part.ids, bare(GetParam(), partial));
  const bool recurrent = GetParam() == "tiny-random-lfm2-fp32";  // no rewinding conv state: a miss
  EXPECT_EQ(part.cached_prompt_tokens, recurrent ? 0 : 2);
}

// dummy-decoder imports (int32 input_ids) but its graph has no nodes: it returns the same
// initializers (logits [2, 2, 32], presents [2, 2, 2, 4]) whatever it is fed. ogai refuses the
// first step naming the present and the shape it expected; the bare loop cannot go on either.
TEST(OrtGenaiDummyDecoder, ItsFixedOutputsAreRefusedNamingTheShape) {
  auto model = Model::load(folder("dummy-decoder"));
  try {
    model->generate(std::span<const std::int32_t>(kPrompts[0]), greedy());
    ADD_FAILURE() << "generated from a graph whose outputs ignore the feeds";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("present.0.key"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("produced float32 [2, 2, 2, 4], expected float32 [1, 2, 5, 4]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(bare("dummy-decoder", kPrompts[0]), std::runtime_error);
}

// genai_config.json's provider options: mapped on their provider, one stderr line each elsewhere;
// a CUDA provider option on the CPU is one such line when the folder loads.
TEST(OrtGenaiSessionSettings, MappedOnTheirProviderAndNamedElsewhere) {
  importer::SessionSettings s;
  const std::string at = "model.decoder.session_options.provider_options[0].cuda.";
  s.provider_options = {
      {"cuda", "enable_cuda_graph", "1", at + "enable_cuda_graph"},
      {"cuda", "device_id", "1", at + "device_id"},
      {"cuda", "gpu_mem_limit", "1000000", at + "gpu_mem_limit"},
      {"qnn", "backend_path", "QnnHtp.so", "model.decoder.session_options.provider_options[1].qnn.backend_path"}};
  s.intra_op_threads = 3;
  s.graph_optimization_level = 1;
  s.config_entries = {{"session.intra_op.allow_spinning", "0"}};
  ort::SessionOptions cpu;
  ::testing::internal::CaptureStderr();
  generate::apply_session_settings(s, cpu, "pkg");
  std::string lines = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(cpu.intra_op_threads, 3);
  EXPECT_EQ(cpu.graph_optimization_level, 1);
  EXPECT_EQ(cpu.config_entries, s.config_entries);
  EXPECT_TRUE(cpu.cuda_options.empty());
  EXPECT_EQ(cpu.device_id, 0);
  for (const char* key : {"enable_cuda_graph '1' ignored: ogai runs on cpu", "device_id '1' ignored: ogai runs on cpu",
                          "gpu_mem_limit '1000000' ignored", "qnn.backend_path 'QnnHtp.so' ignored"})
    EXPECT_NE(lines.find(key), std::string::npos) << key << " in\n" << lines;
  ort::SessionOptions cuda;
  cuda.execution_provider = "cuda";
  cuda.intra_op_threads = 2;  // --threads wins over the package
  ::testing::internal::CaptureStderr();
  generate::apply_session_settings(s, cuda, "pkg");
  lines = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(cuda.intra_op_threads, 2);
  EXPECT_EQ(cuda.device_id, 1);
  EXPECT_EQ(cuda.cuda_options, (std::vector<std::pair<std::string, std::string>>{{"gpu_mem_limit", "1000000"}}));
  EXPECT_NE(lines.find("enable_cuda_graph '1' ignored: ogai's decode steps change input shapes"), std::string::npos)
      << lines;
  EXPECT_NE(lines.find("qnn.backend_path"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("gpu_mem_limit"), std::string::npos) << lines;
  ::testing::internal::CaptureStderr();
  Model::load(folder("tiny-qwen35-cuda"));
  lines = ::testing::internal::GetCapturedStderr();
  const std::string once = "provider_options[0].cuda.enable_cuda_graph '1' ignored: ogai runs on cpu";
  ASSERT_NE(lines.find(once), std::string::npos) << lines;
  EXPECT_EQ(lines.find(once, lines.find(once) + 1), std::string::npos) << "said once\n" << lines;
}

// The model-builder Llama case of the issue: genai_config.json says eos_token_id 1 while
// tokenizer_config.json's eos_token is id 2; ogai stops on 1 alone (as ORT GenAI does) and says
// so once, instead of refusing the folder.
TEST(OrtGenaiEos, TheConfigsIdsAreTheStopSet) {
  const fs::path dir = fs::path(OGAI_BINARY_DIR) / "test_tmp" / "gpt2-eos";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* f : {"past.onnx", "tokenizer.json", "vocab.json"})
    fs::copy_file(folder("tiny-random-gpt2-fp32") / f, dir / f);  // links would leave the folder
  auto config = nlohmann::json::parse(read_file(folder("tiny-random-gpt2-fp32") / "genai_config.json"));
  const Ids prompt = kPrompts[0];
  const Ids reference = bare("tiny-random-gpt2-fp32", prompt);
  config["model"]["eos_token_id"] = nlohmann::json::array({reference[2], 999});  // stops at reference[2]
  write_file(dir / "genai_config.json", config.dump());
  write_file(dir / "tokenizer_config.json", R"({"eos_token": "<|endoftext|>"})");
  ::testing::internal::CaptureStderr();
  auto model = Model::load(dir);
  const std::string lines = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(lines.find("tokenizer_config.json eos_token '<|endoftext|>' is id 50256"), std::string::npos) << lines;
  EXPECT_EQ(model->info().eos_token_ids, (Ids{reference[2], 999}));
  GenerationOptions o = greedy();
  o.ignore_eos = false;
  const auto r = model->generate(std::span<const std::int32_t>(prompt), o);
  Ids until_stop;  // the reference up to the first id of the stop set
  for (std::int32_t id : reference) {
    until_stop.push_back(id);
    if (id == reference[2]) break;
  }
  EXPECT_EQ(r.ids, until_stop);
  EXPECT_EQ(r.finish_reason, FinishReason::kEos);
}

INSTANTIATE_TEST_SUITE_P(Folders, OrtGenaiFolder,
                         ::testing::Values("tiny-qwen35-cuda", "tiny-random-gpt2-fp32", "tiny-random-lfm2-fp32"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

}  // namespace
}  // namespace ogai
