// Imported GenAI folders run: greedy output of the imported stories260k folder equals a bare ONNX
// Runtime loop over the same graph (bench/bare_ort_loop.h), and the imported tiny-e2b folder
// and tiny-e2b-fp16 folders (GroupQueryAttention, sliding and full layers, shared past/present
// buffers; float16 with external data) generate exactly what the hand-written packages generate.
#include <gtest/gtest.h>

#include <vector>

#include "bench/bare_ort_loop.h"
#include "genai_folder.h"
#include "ogai/ogai.h"
#include "onnx/graph_info.h"

namespace ogai::importer {
namespace {

namespace fs = std::filesystem;

std::vector<std::int32_t> greedy(const fs::path& package, const std::vector<std::int32_t>& prompt, int tokens) {
  auto model = Model::load(package);
  GenerationOptions options;
  options.max_new_tokens = tokens;
  options.ignore_eos = true;
  return model->generate(prompt, options).ids;
}

TEST(ImportRun, StoriesGreedyEqualsABareOrtLoop) {
  const fs::path dir = testing::make_folder("run_stories", "stories260k");
  const std::vector<std::int32_t> prompt = {1, 403, 407, 261, 378};  // "Once upon a time" with BOS
  const std::vector<std::int32_t> ours = greedy(dir, prompt, 48);
  bench::BareOrtLoop bare(dir / "model.onnx", 5, 4, 8);
  const auto loop = bare.run(std::vector<std::int64_t>(prompt.begin(), prompt.end()), 47);
  ASSERT_EQ(ours.size(), loop.tokens.size());
  for (std::size_t i = 0; i < ours.size(); ++i) EXPECT_EQ(ours[i], loop.tokens[i]) << "token " << i;
}

// The model-builder-style Llamas (RotaryEmbedding, SkipSimplifiedLayerNormalization, external
// data): GroupQueryAttention with separate and with shared past/present buffers, and
// MultiHeadAttention.
struct BuilderCase {
  std::string source, name;
  bool shared;
  const char* attention;
  std::int64_t kv_heads;
};

class ImportRunBuilder : public ::testing::TestWithParam<BuilderCase> {};

TEST_P(ImportRunBuilder, GreedyEqualsABareOrtLoop) {
  const BuilderCase& c = GetParam();
  const fs::path dir = testing::make_folder("run_" + c.name, c.source,
                                            [&](nlohmann::json& config) { config["search"]["past_present_share_buffer"] = c.shared; });
  const onnx::GraphInfo graph = onnx::read_graph_info(dir / "model.onnx");
  for (const char* op : {c.attention, "com.microsoft:RotaryEmbedding", "com.microsoft:SkipSimplifiedLayerNormalization"})
    EXPECT_TRUE(graph.op_types.contains(op)) << op;
  const std::vector<std::int32_t> prompt = {1, 403, 407, 261, 378, 290, 414};
  const std::vector<std::int32_t> ours = greedy(dir, prompt, 48);
  bench::BareOrtLoop bare(dir / "model.onnx", 3, c.kv_heads, 16);
  const auto loop = bare.run(std::vector<std::int64_t>(prompt.begin(), prompt.end()), 47);
  ASSERT_EQ(ours.size(), loop.tokens.size());
  for (std::size_t i = 0; i < ours.size(); ++i) EXPECT_EQ(ours[i], loop.tokens[i]) << "token " << i;
}

INSTANTIATE_TEST_SUITE_P(
    Exports, ImportRunBuilder,
    ::testing::Values(BuilderCase{"builder-llama", "gqa", false, "com.microsoft:GroupQueryAttention", 2},
                      BuilderCase{"builder-llama", "gqa_shared", true, "com.microsoft:GroupQueryAttention", 2},
                      BuilderCase{"builder-llama-mha", "mha", false, "com.microsoft:MultiHeadAttention", 4}),
    [](const auto& info) { return info.param.name; });

class ImportRunE2b : public ::testing::TestWithParam<std::string> {};

TEST_P(ImportRunE2b, ImportedEqualsTheHandWrittenPackage) {
  const fs::path dir = testing::make_folder("run_" + GetParam(), GetParam());
  const fs::path written_dir = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages" / GetParam();
  auto written_model = Model::load(written_dir);
  const std::vector<std::int32_t> prompt = written_model->tokenize("the cat sat on the mat and");
  const std::vector<std::int32_t> imported = greedy(dir, prompt, 40);
  const std::vector<std::int32_t> written = greedy(written_dir, prompt, 40);
  EXPECT_EQ(imported.size(), 40u);
  EXPECT_EQ(imported, written);
}

INSTANTIATE_TEST_SUITE_P(Packages, ImportRunE2b, ::testing::Values("tiny-e2b", "tiny-e2b-fp16"),
                         [](const auto& info) { return info.param == "tiny-e2b" ? std::string("fp32") : std::string("fp16"); });

}  // namespace
}  // namespace ogai::importer
