// genai_config.json reading: what is accepted, and every refusal by name (importer/genai_config.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "genai_folder.h"
#include "importer/genai_config.h"
#include "ogai/error.h"

namespace ogai::importer {
namespace {

using nlohmann::json;

GenaiConfig parse(const json& config) { return parse_genai_config(config.dump(), "dir/genai_config.json"); }

json edited(const std::string& pointer, const json& value) {
  json config = testing::base_config("stories260k");
  config[json::json_pointer(pointer)] = value;
  return config;
}

// Throws `code`; what() holds every fragment.
void expect_error(const json& config, ErrorCode code, const std::vector<std::string>& fragments) {
  try {
    parse(config);
    ADD_FAILURE() << "accepted: " << config.dump();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_EQ(e.where(), "dir/genai_config.json");
    for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what() << "\nmissing: " << f;
  }
}

TEST(GenaiConfig, ModelBuilderConfigIsReadWhole) {
  GenaiConfig c = parse(testing::base_config("stories260k"));
  EXPECT_EQ(c.type, "llama");
  EXPECT_EQ(c.decoder_filename, "model.onnx");
  EXPECT_EQ(c.head_size, 8);
  EXPECT_EQ(c.num_key_value_heads, 4);
  EXPECT_EQ(c.num_attention_heads, 8);
  EXPECT_EQ(c.num_hidden_layers, 5);
  EXPECT_EQ(c.context_length, 512);
  EXPECT_EQ(c.vocab_size, 512);
  EXPECT_EQ(c.bos_token_id, 1);
  EXPECT_EQ(c.pad_token_id, 0);
  EXPECT_EQ(c.eos_token_ids, std::vector<std::int64_t>{2});
  EXPECT_EQ(c.names.past_key, "past_key_values.%d.key");
  EXPECT_EQ(c.search.do_sample, false);
  EXPECT_EQ(c.search.top_k, 50);
  EXPECT_EQ(c.search.max_length, 512);
  EXPECT_FALSE(c.search.past_present_share_buffer);
  EXPECT_FALSE(c.sliding_window);
}

TEST(GenaiConfig, NamesAndListsComeFromTheFile) {
  json config = edited("/model/decoder/inputs/past_key_names", "cache.%d.k");
  config["model"]["eos_token_id"] = json::array({2, 7});
  config["model"]["decoder"]["sliding_window"] = {{"window_size", 4}, {"slide_key_value_cache", false},
                                                  {"slide_inputs", false}, {"layers", {1, 3}}};
  GenaiConfig c = parse(config);
  EXPECT_EQ(c.names.past_key, "cache.%d.k");
  EXPECT_EQ(c.eos_token_ids, (std::vector<std::int64_t>{2, 7}));
  ASSERT_TRUE(c.sliding_window);
  EXPECT_EQ(c.sliding_window->window_size, 4);
  EXPECT_EQ(c.sliding_window->layers, (std::vector<std::int64_t>{1, 3}));
}

// Provider and session options are kept for the runtime (generate/session_settings.h maps them
// per provider); options with no effect anywhere are listed to be said once on stderr.
TEST(GenaiConfig, ProviderAndSessionOptionsAreKeptForTheRuntime) {
  json config = edited("/model/decoder/session_options/provider_options",
                       json::array({{{"CUDA", {{"enable_cuda_graph", "1"}, {"device_id", "0"}}}},
                                    {{"cpu", json::object()}}, {{"qnn", {{"backend_path", "x.so"}}}}}));
  config["model"]["decoder"]["session_options"]["intra_op_num_threads"] = 3;
  config["model"]["decoder"]["session_options"]["graph_optimization_level"] = "ORT_ENABLE_BASIC";
  config["model"]["decoder"]["session_options"]["enable_mem_pattern"] = false;
  config["model"]["decoder"]["session_options"]["session.intra_op.allow_spinning"] = "0";
  config["model"]["decoder"]["session_options"]["log_severity_level"] = 2;
  config["engine"] = {{"dynamic_batching", {{"block_size", 4}, {"num_blocks", 128}}}};
  config["search"]["random_seed"] = 7;
  GenaiConfig c = parse(config);
  const SessionSettings& s = c.session;
  ASSERT_EQ(s.provider_options.size(), 4u);  // options by name within an entry, entries in file order
  EXPECT_EQ(s.provider_options[0].provider, "cuda");
  EXPECT_EQ(s.provider_options[0].key, "device_id");
  EXPECT_EQ(s.provider_options[1].key, "enable_cuda_graph");
  EXPECT_EQ(s.provider_options[1].value, "1");
  EXPECT_EQ(s.provider_options[1].path, "model.decoder.session_options.provider_options[0].CUDA.enable_cuda_graph");
  EXPECT_EQ(s.provider_options[2].provider, "cpu");
  EXPECT_TRUE(s.provider_options[2].key.empty());
  EXPECT_EQ(s.provider_options[3].provider, "qnn");
  EXPECT_EQ(s.intra_op_threads, 3);
  EXPECT_EQ(s.graph_optimization_level, 1);
  EXPECT_EQ(s.enable_mem_pattern, false);
  ASSERT_EQ(s.config_entries.size(), 1u);
  EXPECT_EQ(s.config_entries[0].first, "session.intra_op.allow_spinning");
  std::string ignored;
  for (const auto& line : s.ignored) ignored += line + "\n";
  for (const char* named : {"log_severity_level 2", "engine.dynamic_batching.block_size 4",
                            "engine.dynamic_batching.num_blocks 128", "search.random_seed 7"})
    EXPECT_NE(ignored.find(named), std::string::npos) << named << " in\n" << ignored;
}

TEST(GenaiConfig, LayerTypesAndStateNames) {
  json config = edited("/model/decoder/layer_types", {"conv", "full_attention"});
  config["model"]["type"] = "lfm2";
  config["model"]["decoder"]["conv_cache_size"] = 4;
  config["model"]["decoder"]["inputs"]["past_conv_names"] = "past_conv.%d";
  config["model"]["decoder"]["inputs"]["past_names"] = "past_%d";
  GenaiConfig c = parse(config);
  EXPECT_EQ(c.layer_types, (std::vector<std::string>{"conv", "full_attention"}));
  EXPECT_EQ(c.conv_cache_size, 4);
  EXPECT_EQ(c.names.past_conv, "past_conv.%d");
  EXPECT_EQ(c.names.past_combined, "past_%d");
}

TEST(GenaiConfig, TopPOutsideTheUnitIntervalIsOffNotWritten) {
  GenaiConfig c = parse(edited("/search/top_p", 0.0));
  EXPECT_FALSE(c.search.top_p);
  EXPECT_NE(c.notes.back().find("search.top_p"), std::string::npos);
}

struct Refusal {
  std::string pointer;
  json value;
  std::vector<std::string> fragments;
};

TEST(GenaiConfig, EveryRefusalNamesItsField) {
  const std::vector<Refusal> refusals = {
      {"/model/type", "whisper", {"model.encoder", "missing", "whisper"}},
      {"/model/type", "marian-ssru", {"model.type", "'marian-ssru'", "SSRU recurrent state"}},
      {"/model/decoder_start_token_id", 3, {"model.decoder_start_token_id", "encoder-decoder"}},
      {"/model/decoder/outputs/output_cross_qk_names", "qk.%d", {"output_cross_qk_names", "encoder-decoder"}},
      {"/model/decoder/inputs/encoder_hidden_states", "h", {"encoder_hidden_states", "Marian"}},
      {"/model/type", "qwen2_5_vl", {"model.type", "vision-language"}},
      {"/model/type", "decoder-pipeline", {"model.type", "several sessions"}},
      {"/model/type", "my_model", {"model.type", "'my_model' is not a decoder-only model type"}},
      {"/model/encoder", json::object(), {"model.encoder", "encoder-decoder"}},
      {"/model/vision", json::object(), {"model.vision", "vision components"}},
      {"/model/speech", json::object(), {"model.speech", "speech components"}},
      {"/model/embedding", json::object(), {"model.embedding", "embedding session"}},
      {"/model/draft", json::object(), {"model.draft", "speculative"}},
      {"/model/image_token_id", 5, {"model.image_token_id", "multimodal"}},
      {"/model/tokenizer_dir", "tok", {"model.tokenizer_dir", "another folder"}},
      {"/model/context_length", 0, {"model.context_length", "must be > 0"}},
      {"/model/context_length", 1000000000000, {"model.context_length", "1000000000000 is above the largest context"}},
      {"/model/decoder/pipeline", json::array(), {"model.decoder.pipeline", "several sessions"}},
      {"/model/decoder/layer_types", {"mamba", "full_attention"}, {"model.decoder.layer_types[0]", "'mamba'"}},
      {"/model/type", "granitemoehybrid", {"model.type", "state-space"}},
      {"/model/decoder/session_options/graph_optimization_level", "O3",
       {"graph_optimization_level", "'O3' is not one of"}},
      {"/engine", {{"dynamic_batching", {{"page_size", 4}}}}, {"engine.dynamic_batching.page_size"}},
      {"/model/decoder/inputs/cross_past_key_names", "c.%d", {"cross_past_key_names", "cross-attention"}},
      {"/model/decoder/sliding_window", {{"window_size", 4}},
       {"model.decoder.sliding_window.slide_key_value_cache", "absent (default true)", "never slides"}},
      {"/model/decoder/sliding_window", {{"window_size", 4}, {"slide_key_value_cache", false}},
       {"model.decoder.sliding_window.slide_inputs", "absent (default true)"}},
      {"/model/decoder/sliding_window",
       {{"window_size", 0}, {"slide_key_value_cache", false}, {"slide_inputs", false}},
       {"model.decoder.sliding_window.window_size", "must be >= 1"}},
      {"/model/decoder/session_options/custom_ops_library", "libx.so", {"custom_ops_library", "custom operator"}},
      {"/model/decoder/session_options/session.disable_prepacking", "1", {"session.disable_prepacking", "not a field"}},
      {"/model/decoder/run_options", {{"gpu_graph_id", "1"}}, {"model.decoder.run_options.gpu_graph_id"}},
      {"/model/decoder/shared_initializers", json::array(), {"model.decoder.shared_initializers"}},
      {"/model/decoder/head_dims", 8, {"model.decoder.head_dims", "not a field the importer knows"}},
      {"/search/num_beams", 4, {"search.num_beams", "beam search"}},
      {"/search/num_return_sequences", 2, {"search.num_return_sequences"}},
      {"/search/no_repeat_ngram_size", 3, {"search.no_repeat_ngram_size", "n-gram blocking"}},
      {"/search/min_length", 5, {"search.min_length", "minimum length"}},
      {"/search/top_k", -1, {"search.top_k", ">= 0"}},
      {"/search/blank_penalty", 1.0, {"search.blank_penalty"}},
      {"/speculative", {{"ngram_size", 3}}, {"speculative", "--speculative"}},
      {"/mystery", 1, {"mystery", "not a field the importer knows"}},
  };
  for (const auto& r : refusals) {
    SCOPED_TRACE(r.pointer + " = " + r.value.dump());
    expect_error(edited(r.pointer, r.value), ErrorCode::kUnsupported, r.fragments);
  }
}

TEST(GenaiConfig, MissingRequiredFieldsAreNamed) {
  json config = testing::base_config("stories260k");
  config["model"]["decoder"].erase("filename");
  expect_error(config, ErrorCode::kUnsupported, {"model.decoder.filename", "missing"});
  config = testing::base_config("stories260k");
  config["model"].erase("type");
  expect_error(config, ErrorCode::kUnsupported, {"model.type", "missing"});
}

TEST(GenaiConfig, WrongTypesAndBrokenJsonAreParseErrors) {
  expect_error(edited("/model/decoder/head_size", "8"), ErrorCode::kParse, {"model.decoder.head_size", "expected an integer", "\"8\""});
  expect_error(edited("/model/decoder/head_size", 8.5), ErrorCode::kParse, {"model.decoder.head_size", "8.5"});
  expect_error(edited("/search/do_sample", 1), ErrorCode::kParse, {"search.do_sample", "true or false"});
  expect_error(edited("/model/eos_token_id", json::array()), ErrorCode::kParse, {"model.eos_token_id", "non-empty"});
  try {
    parse_genai_config(R"({"model": {"type": "llama", "type": "gpt2"}})", "dir/genai_config.json");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kParse);
    EXPECT_NE(std::string(e.what()).find("duplicate key 'type'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_genai_config("{\"model\": ", "dir/genai_config.json"), Error);
}

}  // namespace
}  // namespace ogai::importer
