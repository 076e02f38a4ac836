// A package's generation_config.json sampling fields become its defaults where the metadata's
// generation.defaults sets nothing (transformers' behaviour): request > metadata > generation_config
// > ogai. A field of the wrong type fails the load naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;

// tiny-e2b copied into a fresh folder with `generation_config` as its generation_config.json.
fs::path package_with(const std::string& generation_config, const std::string& name) {
  const fs::path source = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b";
  const fs::path dir = fs::temp_directory_path() / ("ogai-genconfig-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(source, dir, fs::copy_options::recursive);
  std::ofstream(dir / "generation_config.json") << generation_config;
  return dir;
}

GenerationOptions tokens(int n) {
  GenerationOptions o;
  o.max_new_tokens = n;
  return o;
}

TEST(GenerationConfigDefaults, SamplingFieldsBecomeTheDefaults) {
  const fs::path dir = package_with(
      R"({"eos_token_id": [1, 5], "do_sample": true, "temperature": 0.7, "top_k": 20, "top_p": 0.9})", "sample");
  auto model = Model::load(dir);
  auto plain = Model::load(fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b");
  GenerationOptions seeded = tokens(24);
  seeded.sampling.seed = 11;
  GenerationOptions explicit_options = seeded;
  explicit_options.sampling.do_sample = true;
  explicit_options.sampling.temperature = 0.7f;
  explicit_options.sampling.top_k = 20;
  explicit_options.sampling.top_p = 0.9f;
  const auto defaulted = model->generate("the cat", seeded);
  EXPECT_EQ(defaulted.ids, plain->generate("the cat", explicit_options).ids);
  EXPECT_NE(defaulted.ids, plain->generate("the cat", tokens(24)).ids) << "the defaults should sample";
  GenerationOptions other_seed = seeded;
  other_seed.sampling.seed = 12;
  EXPECT_NE(model->generate("the cat", other_seed).ids, defaulted.ids) << "regenerating should change the answer";
  // A request's own values win: temperature 0 is greedy.
  GenerationOptions greedy = tokens(24);
  greedy.sampling.temperature = 0.0f;
  EXPECT_EQ(model->generate("the cat", greedy).ids, plain->generate("the cat", tokens(24)).ids);
  fs::remove_all(dir);
}

TEST(GenerationConfigDefaults, WithoutSamplingFieldsDecodingStaysGreedy) {
  const fs::path dir = package_with(R"({"eos_token_id": [1, 5], "temperature": 0.7})", "greedy");
  auto model = Model::load(dir);
  auto plain = Model::load(fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b");
  // do_sample absent (transformers' default false): the temperature alone does not make it sample.
  EXPECT_EQ(model->generate("the cat", tokens(16)).ids, plain->generate("the cat", tokens(16)).ids);
  fs::remove_all(dir);
}

TEST(GenerationConfigDefaults, AWrongTypeNamesTheField) {
  const fs::path dir = package_with(R"({"eos_token_id": [1, 5], "temperature": "hot"})", "bad");
  try {
    Model::load(dir);
    FAIL() << "a string temperature was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("generation_config.json.temperature"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ogai
