// The LoRA units on the adapter fixture's `adapters` section: the contract, the JSON and PEFT
// readers (the PEFT safetensors factors equal the portable JSON's), the LRU cache's lifecycle
// counters, the selection tensors and the overlay arithmetic, and their refusals.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "base/file.h"
#include "metadata/package.h"
#include "ogai/error.h"
#include "workflow/lora_overlay.h"

namespace ogai::workflow {
namespace {

namespace fs = std::filesystem;

fs::path fixture() { return fs::path(OGAI_SHARED_DIR) / "conformance/metadata/fixtures/adapter"; }

LoraContract contract() {
  static const metadata::Package package = metadata::load_package(fixture());
  return lora_contract(*package.document.adapters, package.files.root);
}

LoraArtifact artifact(const LoraContract& c, const std::string& alias) { return *c.by_alias(alias); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const LoraFactors& projection(const LoadedLora& l) { return l.targets.at({"decoder", "projection"}); }

TEST(LoraContract, ReadsTheFixture) {
  const auto c = contract();
  ASSERT_EQ(c.targets.size(), 1u);
  EXPECT_EQ(c.targets[0].component, "decoder");
  EXPECT_EQ(c.targets[0].initializer, "projection");
  EXPECT_EQ(c.cache_entries, 2u);
  EXPECT_EQ(c.max_adapters, 2);
  EXPECT_EQ(c.by_alias("red")->index, 3);
  EXPECT_EQ(c.by_index(0)->alias, "blue");
  EXPECT_EQ(c.active.value_or(""), "request.active");
}

TEST(LoraWeights, JsonFactors) {
  const auto c = contract();
  const auto red = load_lora(c, artifact(c, "red"));
  EXPECT_EQ(projection(red).a, (std::vector<float>{1, 0}));
  EXPECT_EQ(projection(red).b, (std::vector<float>{1, 2}));
  EXPECT_EQ(projection(red).factor, 1.0f);
}

TEST(LoraWeights, PeftSafetensorsEqualThePortableJson) {
  const auto c = contract();
  auto json_only = artifact(c, "peft");
  auto peft_only = json_only;
  ASSERT_EQ(json_only.weights.size(), 2u);
  json_only.weights.resize(1);
  peft_only.weights.erase(peft_only.weights.begin());
  ASSERT_EQ(peft_only.weights[0].format, "hf_peft");
  const auto from_json = load_lora(c, json_only);
  const auto from_peft = load_lora(c, peft_only);
  EXPECT_NE(from_peft.source.find("adapter_model.safetensors"), std::string::npos);
  EXPECT_EQ(projection(from_peft).a, (std::vector<float>{1, -1}));
  EXPECT_EQ(projection(from_peft).a, projection(from_json).a);
  EXPECT_EQ(projection(from_peft).b, projection(from_json).b);
  EXPECT_EQ(projection(from_peft).factor, projection(from_json).factor);
}

// A package copy in the build folder whose adapter files a test rewrites.
struct ScratchPackage {
  fs::path root;
  LoraContract c;
  explicit ScratchPackage(const std::string& name) {
    root = fs::path(OGAI_BINARY_DIR) / "lora_test_packages" / name;
    fs::remove_all(root);
    fs::create_directories(root / "adapters/peft");
    fs::create_directories(root / "adapters/red");
    c = contract();
    c.root = fs::canonical(root);
    for (const char* f : {"adapters/peft/adapter_config.json", "adapters/peft/adapter_model.safetensors", "adapters/red/adapter.json"})
      write_file(root / f, read_file(fixture() / f));
  }
  LoraArtifact peft() const {
    auto a = *c.by_alias("peft");
    a.weights.erase(a.weights.begin());
    return a;
  }
};

TEST(LoraWeights, RefusesAShapeMismatchWithTheTarget) {
  ScratchPackage p("shape");
  write_file(p.root / "adapters/red/adapter.json", R"({"targets":{"projection":{"a":[1],"b":[1,2]}}})");
  const std::string e = error_of([&] { load_lora(p.c, *p.c.by_alias("red")); });
  EXPECT_NE(e.find("shape mismatch with target 'projection'"), std::string::npos) << e;
  EXPECT_NE(e.find("adapters/red/adapter.json"), std::string::npos) << e;
  // The PEFT file's A as [2, 1] instead of [1, 2]: the header rewritten, same length.
  std::string st = read_file(p.root / "adapters/peft/adapter_model.safetensors");
  const auto at = st.find("\"shape\":[1,2]");
  ASSERT_NE(at, std::string::npos);
  st.replace(at, 13, "\"shape\":[2,1]");
  write_file(p.root / "adapters/peft/adapter_model.safetensors", st);
  const std::string e2 = error_of([&] { load_lora(p.c, p.peft()); });
  EXPECT_NE(e2.find("shape mismatch"), std::string::npos) << e2;
  EXPECT_NE(e2.find("lora_A.weight"), std::string::npos) << e2;
}

TEST(LoraWeights, RefusesATruncatedPeftFileAndABadConfig) {
  ScratchPackage p("truncated");
  const std::string st = read_file(p.root / "adapters/peft/adapter_model.safetensors");
  write_file(p.root / "adapters/peft/adapter_model.safetensors", st.substr(0, st.size() - 3));
  std::string e = error_of([&] { load_lora(p.c, p.peft()); });
  EXPECT_NE(e.find("adapter_model.safetensors"), std::string::npos) << e;
  EXPECT_NE(e.find("data section"), std::string::npos) << e;
  write_file(p.root / "adapters/peft/adapter_model.safetensors", st);
  write_file(p.root / "adapters/peft/adapter_config.json", R"({"r":2,"lora_alpha":1.0,"target_modules":["projection"]})");
  e = error_of([&] { load_lora(p.c, p.peft()); });
  EXPECT_NE(e.find("adapter_config.json has r 2"), std::string::npos) << e;
  write_file(p.root / "adapters/peft/adapter_config.json", R"({"r":1,"lora_alpha":1.0,"target_modules":["q_proj"]})");
  e = error_of([&] { load_lora(p.c, p.peft()); });
  EXPECT_NE(e.find("do not include 'projection'"), std::string::npos) << e;
  write_file(p.root / "adapters/peft/adapter_config.json", R"({"r":1,"lora_alpha":1.0,"use_dora":true})");
  e = error_of([&] { load_lora(p.c, p.peft()); });
  EXPECT_NE(e.find("use_dora"), std::string::npos) << e;
}

TEST(LoraWeights, RefusesAWeightFileOutsideThePackage) {
  ScratchPackage p("escape");
  auto red = *p.c.by_alias("red");
  red.weights[0].location = "../../../etc/passwd";
  EXPECT_NE(error_of([&] { load_lora(p.c, red); }).find("adapters.artifacts.red.weights[0].location"), std::string::npos);
}

LoraRows rows(std::initializer_list<std::vector<LoraActivation>> r) { return LoraRows(r); }

TEST(LoraCache, LifecycleOfTheReferenceSequence) {
  LoraCache cache(contract());
  const std::vector<LoraActivation> red{{"red", 1}}, blue{{"blue", 1}}, green{{"green", 1}}, mix{{"red", 0.5f}, {"blue", 1}};
  cache.prepare(rows({red, blue, mix}), {true, false, true}, "t");
  cache.prepare(rows({mix, red}), {true, true}, "t");
  cache.prepare(rows({{}}), {true}, "t");
  for (int i = 0; i < 2; ++i) cache.prepare(rows({blue}), {true}, "t");
  cache.prepare(rows({green}), {true}, "t");
  for (int i = 0; i < 2; ++i) cache.prepare(rows({red}), {true}, "t");
  const auto s = cache.lifecycle();
  EXPECT_EQ(s.loads, 4u);
  EXPECT_EQ(s.evictions, 2u);
  EXPECT_EQ(s.reloads, 1u);
  EXPECT_EQ(s.capture_invalidations, 2u);
  EXPECT_GT(s.cache_hits, 0u);
  EXPECT_GT(s.replayed_plans, 0u);
  EXPECT_EQ(s.cached, (std::vector<std::string>{"green", "red"}));
}

TEST(LoraCache, InactiveRowsLoadNothing) {
  LoraCache cache(contract());
  const auto prepared = cache.prepare(rows({{{"red", 1}}}), {false}, "t");
  EXPECT_TRUE(prepared[0].empty());
  EXPECT_EQ(cache.lifecycle().loads, 0u);
}

TEST(LoraCache, Refusals) {
  LoraCache cache(contract());
  EXPECT_NE(error_of([&] { cache.prepare(rows({{{"purple", 1}}}), {true}, "req"); }).find("undeclared adapter 'purple' (declared: blue, green, peft, red)"),
            std::string::npos);
  EXPECT_NE(error_of([&] { cache.prepare(rows({{{"red", 1}, {"red", 2}}}), {true}, "req"); }).find("duplicate adapter"), std::string::npos);
  EXPECT_NE(error_of([&] { cache.prepare(rows({{{"red", 17}}}), {true}, "req"); }).find("[-16, 16]"), std::string::npos);
  EXPECT_NE(error_of([&] { cache.prepare(rows({{{"red", 1}}, {{"blue", 1}}, {{"green", 1}}}), {true, true, true}, "req"); })
                .find("3 distinct adapters but adapters.cache.max_entries is 2"),
            std::string::npos);
  EXPECT_EQ(cache.lifecycle().loads, 0u);
}

ort::Tensor f32(std::vector<float> v, ort::Shape s) { return ort::Tensor::copy_of(std::span<const float>(v), std::move(s)); }
std::vector<float> values(const ort::Tensor& t) { return {t.span<float>().begin(), t.span<float>().end()}; }

TEST(LoraOverlay, HeterogeneousRowsAndSoloRowsAgree) {
  const auto c = contract();
  LoraCache cache(c);
  const std::vector<LoraActivation> red{{"red", 1}}, blue{{"blue", 1}}, mix{{"red", 0.5f}, {"blue", 1}};
  const auto batch = cache.prepare(rows({red, blue, mix}), {true, false, true}, "t");
  const auto y = apply_overlay(batch, "decoder", "projection", f32({1, 2, 3, 4, 5, 6}, {3, 2}), 2, "t");
  EXPECT_EQ(values(y), (std::vector<float>{2, 4, 3, 4, 25.5f, 35}));
  const auto solo = cache.prepare(rows({mix}), {true}, "t");
  EXPECT_EQ(values(apply_overlay(solo, "decoder", "projection", f32({5, 6}, {1, 2}), 2, "t")), (std::vector<float>{25.5f, 35}));
  // A [B, S, in] input: each row's adapters apply at every position.
  const auto seq = apply_overlay(cache.prepare(rows({red}), {true}, "t"), "decoder", "projection", f32({1, 2, 5, 6}, {1, 2, 2}), 2, "t");
  EXPECT_EQ(values(seq), (std::vector<float>{2, 4, 10, 16}));
  EXPECT_EQ(seq.shape(), (ort::Shape{1, 2, 2}));
}

TEST(LoraOverlay, RefusesMismatchedInputs) {
  LoraCache cache(contract());
  const auto one = cache.prepare(rows({{{"red", 1}}}), {true}, "t");
  EXPECT_NE(error_of([&] { apply_overlay(one, "decoder", "projection", f32({1, 2, 3, 4}, {2, 2}), 2, "step"); }).find("has batch 2"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_overlay(one, "decoder", "projection", f32({1, 2, 3}, {1, 3}), 2, "step"); }).find("expects [2, 2]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_overlay(one, "decoder", "other", f32({1, 2}, {1, 2}), 2, "step"); }).find("does not target parameter 'decoder.other'"),
            std::string::npos);
}

TEST(LoraSelection, TensorsRoundTripAndStrictPadding) {
  const auto c = contract();
  const LoraRows named{{{"red", 0.5f}}, {}, {{"blue", 1}, {"red", -0.25f}}};
  auto tensors = lora_selection_tensors(c, named, "t");
  std::map<std::string, ort::Tensor> store;
  for (auto& [k, v] : tensors) store.emplace(k, std::move(v));
  ValueLookup lookup = [&](const std::string& n) -> const ort::Tensor* {
    auto it = store.find(n);
    return it == store.end() ? nullptr : &it->second;
  };
  const auto sel = lora_rows(c, lookup, "t");
  ASSERT_EQ(sel.rows.size(), 3u);
  EXPECT_EQ(sel.rows[0][0].alias, "red");
  EXPECT_EQ(sel.rows[0][0].scale, 0.5f);
  EXPECT_TRUE(sel.rows[1].empty());
  EXPECT_EQ(sel.rows[2][1].alias, "red");
  EXPECT_EQ(sel.active, (std::vector<bool>{true, true, true}));
  // Padding must be -1 / 0.
  store.at(c.segments).span<std::int64_t>()[1] = 0;
  EXPECT_NE(error_of([&] { lora_rows(c, lookup, "t"); }).find("must be padded with index -1"), std::string::npos);
  store.at(c.segments).span<std::int64_t>()[0] = 9;
  EXPECT_NE(error_of([&] { lora_rows(c, lookup, "t"); }).find("adapter index 9"), std::string::npos);
  store.erase(c.counts);
  EXPECT_NE(error_of([&] { lora_rows(c, lookup, "t"); }).find("'request.adapter_counts' is absent"), std::string::npos);
  EXPECT_NE(error_of([&] { lora_selection_tensors(c, {{{"purple", 1}}}, "t"); }).find("unknown adapter 'purple'"), std::string::npos);
  EXPECT_NE(error_of([&] { lora_selection_tensors(c, {{{"red", 1}, {"blue", 1}, {"green", 1}}}, "t"); }).find("max_adapters is 2"),
            std::string::npos);
}

}  // namespace
}  // namespace ogai::workflow
