// Importing GenAI folders (importer/import.h) and loading them through metadata::validate_package:
// the imported document is valid as written, its decoder ABI equals the one of the project's
// hand-written metadata for the same graph, and every cross-check against the graph refuses a
// mismatch naming the config field and the graph port.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "base/file.h"
#include "genai_folder.h"
#include "importer/import.h"
#include "metadata/package.h"
#include "metadata/support.h"
#include "ogai/error.h"

namespace ogai::importer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using metadata::testing::GraphSpec;
using metadata::testing::Port;

const fs::path kSource = OGAI_SOURCE_DIR;

// The import of `dir` throws `code` and what() holds every fragment.
void expect_refused(const fs::path& dir, const std::vector<std::string>& fragments, ErrorCode code = ErrorCode::kUnsupported) {
  try {
    import_genai_folder(dir);
    ADD_FAILURE() << "imported " << dir;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what() << "\nmissing: " << f;
  }
}

metadata::ValidationReport validated_import(const fs::path& dir) {
  ImportResult r = import_genai_folder(dir);
  metadata::ValidationReport report = metadata::validate_package_text(r.document, r.config_file);
  EXPECT_TRUE(report.valid()) << report.diagnostics.text() << "\n" << r.document;
  return report;
}

// The decoder ABI of two packages binds the same ports with the same geometry.
void expect_same_kv(const metadata::DecoderAbi& a, const metadata::DecoderAbi& b) {
  ASSERT_EQ(a.kv_pairs.size(), b.kv_pairs.size());
  for (std::size_t i = 0; i < a.kv_pairs.size(); ++i) {
    const auto &x = a.kv_pairs[i], &y = b.kv_pairs[i];
    EXPECT_EQ(x.group, y.group);
    EXPECT_EQ(x.input, y.input);
    EXPECT_EQ(x.output, y.output);
    EXPECT_EQ(x.role, y.role);
    EXPECT_EQ(x.layer, y.layer);
    EXPECT_EQ(x.geometry.dims, y.geometry.dims) << x.input;
    EXPECT_EQ(x.geometry.dtype, y.geometry.dtype);
  }
  EXPECT_EQ(a.token_ids_input, b.token_ids_input);
  EXPECT_EQ(a.attention_mask_input, b.attention_mask_input);
  EXPECT_EQ(a.position_ids_input, b.position_ids_input);
  EXPECT_EQ(a.logits_output, b.logits_output);
  EXPECT_EQ(a.hidden_states_output, b.hidden_states_output);
}

// Imports `source` as folder `name`; its ABI must equal the hand-written package at `written_dir`.
metadata::ValidationReport import_like_written(const std::string& name, const std::string& source,
                                               const fs::path& written_dir) {
  metadata::ValidationReport imported = validated_import(testing::make_folder(name, source));
  metadata::ValidationReport written = metadata::validate_package(written_dir);
  EXPECT_TRUE(written.valid()) << written.diagnostics.text();
  EXPECT_TRUE(imported.package->decoder && written.package->decoder);
  if (imported.package->decoder && written.package->decoder)
    expect_same_kv(*imported.package->decoder, *written.package->decoder);
  return imported;
}

TEST(Import, StoriesFolderMatchesTheHandWrittenPackage) {
  metadata::ValidationReport imported =
      import_like_written("stories", "stories260k", fs::path(OGAI_BINARY_DIR) / "packages/stories260k");
  ASSERT_TRUE(imported.package->decoder);
  const metadata::Package& p = *imported.package;
  EXPECT_EQ(p.max_sequence_length(), 512);
  EXPECT_FALSE(p.sliding_window());
  EXPECT_EQ(p.files.text.special_tokens_eos_id, 2);
  ASSERT_TRUE(p.document.generation && p.document.generation->defaults);
  EXPECT_EQ(p.document.generation->defaults->do_sample, false);
  EXPECT_EQ(p.document.generation->defaults->top_k, 50);
  EXPECT_EQ(p.document.model->attention->num_kv_heads, 4);
  EXPECT_EQ(p.document.model->attention->num_attention_heads, 8);
  EXPECT_EQ(p.document.model->attention->head_dim, 8);
  EXPECT_EQ(p.decoder->aliasing.value_or(metadata::Aliasing::kForbidden), metadata::Aliasing::kForbidden);
}

TEST(Import, TinyE2bHybridSplitsSlidingAndFullGroups) {
  metadata::ValidationReport imported = import_like_written("e2b", "tiny-e2b", kSource / "tests/data/packages/tiny-e2b");
  ASSERT_TRUE(imported.package->decoder);
  const metadata::Package& p = *imported.package;
  EXPECT_EQ(p.sliding_window(), 8);
  EXPECT_EQ(p.decoder->aliasing, metadata::Aliasing::kPermitted);  // past_present_share_buffer
  for (const auto& pair : p.decoder->kv_pairs)
    EXPECT_EQ(pair.geometry.head_dim, pair.group == "full_attention" ? 32 : 16) << pair.input;
  EXPECT_FALSE(p.document.model->attention->head_dim);  // not one head size for the package
}

TEST(Import, Float16ExternalDataFolderMatchesTheHandWrittenPackage) {
  metadata::ValidationReport imported =
      import_like_written("e2b_fp16", "tiny-e2b-fp16", kSource / "tests/data/packages/tiny-e2b-fp16");
  ASSERT_TRUE(imported.package->decoder);
  const fs::path dir = fs::path(OGAI_BINARY_DIR) / "importer_folders/e2b_fp16";
  EXPECT_EQ(imported.package->decoder->kv_pairs.front().geometry.dtype, DataType::kFloat16);
  fs::remove(dir / "model.onnx.data");  // the package check finds the missing weights
  ImportResult r = import_genai_folder(dir);
  EXPECT_TRUE(metadata::validate_package_text(r.document, r.config_file).diagnostics.has_rule("PKG"));
}

TEST(Import, ValidatePackageImportsAFolderWithoutMetadata) {
  const fs::path dir = testing::make_folder("in_memory", "stories260k");
  metadata::ValidationReport report = metadata::validate_package(dir);
  EXPECT_TRUE(report.valid()) << report.diagnostics.text();
  ASSERT_TRUE(report.imported_from);
  EXPECT_EQ(*report.imported_from, dir / "genai_config.json");
  EXPECT_TRUE(metadata::imports_genai_config(dir));
  EXPECT_EQ(metadata::load_package(dir).decoder->kv_pairs.size(), 10u);
}

TEST(Import, AFolderWithMetadataNeverReadsTheConfig) {
  // The config is refused when imported; the metadata beside it is what loads.
  const fs::path dir = testing::make_folder("both", "stories260k", [](json& c) { c["search"]["num_beams"] = 4; });
  expect_refused(dir, {"search.num_beams"});
  fs::copy_file(kSource / "tests/data/stories260k/inference_metadata.yaml", dir / "inference_metadata.yaml");
  EXPECT_FALSE(metadata::imports_genai_config(dir));
  metadata::ValidationReport report = metadata::validate_package(dir);
  EXPECT_TRUE(report.valid()) << report.diagnostics.text();
  EXPECT_FALSE(report.imported_from);
  // Naming the config file asks for the import whatever the folder holds.
  EXPECT_TRUE(metadata::imports_genai_config(dir / "genai_config.json"));
  EXPECT_THROW(metadata::validate_package(dir / "genai_config.json"), Error);
}

TEST(Import, TheConfigFileNamesItsFolder) {
  const fs::path dir = testing::make_folder("by_file", "stories260k");
  EXPECT_EQ(import_genai_folder(dir / "genai_config.json").document, import_genai_folder(dir).document);
  metadata::ValidationReport report = metadata::validate_package(dir / "genai_config.json");
  EXPECT_TRUE(report.valid()) << report.diagnostics.text();
  EXPECT_EQ(report.imported_from, dir / "genai_config.json");
}

TEST(Import, ImportIsDeterministic) {
  const fs::path dir = testing::make_folder("twice", "stories260k");
  EXPECT_EQ(import_genai_folder(dir).document, import_genai_folder(dir).document);
}

// Every value of the config replaced by each of a few wrong ones: the import either succeeds or
// throws ogai::Error; never another exception, a crash or a hang.
TEST(Import, AnyWrongValueIsAnOgaiErrorOrAccepted) {
  const json base = testing::base_config("tiny-e2b");
  const fs::path dir = testing::make_folder("robust", "tiny-e2b", base);
  const std::vector<json> wrong = {nullptr, "x", -1, 0, 2.5, json::array(), json::object(), json::array({1, "a"})};
  int accepted = 0, refused = 0;
  std::set<std::string> seen;
  const json leaves = base.flatten();
  for (const auto& [pointer, _] : leaves.items()) {
    // Each leaf and each of its parents, once.
    for (json::json_pointer at(pointer); !at.empty() && seen.insert(at.to_string()).second; at = at.parent_pointer()) {
      for (const json& value : wrong) {
        json config = base;
        config[at] = value;
        write_file(dir / "genai_config.json", config.dump());
        try {
          import_genai_folder(dir);
          ++accepted;
        } catch (const Error&) {
          ++refused;
        } catch (const std::exception& e) {
          ADD_FAILURE() << at.to_string() << " = " << value.dump() << ": " << e.what();
        }
      }
    }
  }
  EXPECT_GT(refused, 100);
  EXPECT_GT(accepted, 0);  // e.g. a log_id of 0 is not read
}

struct Mismatch {
  std::string name, pointer;
  json value;
  std::vector<std::string> fragments;
};

TEST(Import, ConfigFactsAreCrossCheckedAgainstTheGraph) {
  const std::vector<Mismatch> cases = {
      {"head_size", "/model/decoder/head_size", 16,
       {"model.decoder.head_size is 16", "'past_key_values.0.key'", "head size 8", "[batch_size, 4, past_sequence_length, 8]"}},
      {"kv_heads", "/model/decoder/num_key_value_heads", 2, {"model.decoder.num_key_value_heads is 2", "kv_heads 4"}},
      {"layers", "/model/decoder/num_hidden_layers", 4, {"model.decoder.num_hidden_layers is 4", "has 5 KV layers"}},
      {"vocab", "/model/vocab_size", 500, {"model.vocab_size is 500", "'logits'", "512 logits"}},
      {"key_template", "/model/decoder/inputs/past_key_names", "past.%d.k",
       {"graph input 'past_key_values.0.key' is not one ogai feeds", "past_key_names 'past.%d.k'"}},
      {"bad_template", "/model/decoder/outputs/present_key_names", "present.key",
       {"model.decoder.outputs.present_key_names", "exactly one %d"}},
      {"bos", "/model/bos_token_id", 4000, {"model.bos_token_id 4000 is not a token of tokenizer.json"}},
      {"escape", "/model/decoder/filename", "../stories/model.onnx", {"model.decoder.filename", "outside the folder"}},
      {"absolute", "/model/decoder/filename", "/etc/passwd", {"model.decoder.filename", "inside the folder"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    expect_refused(testing::make_folder("mismatch_" + c.name, "stories260k",
                                        [&](json& config) { config[json::json_pointer(c.pointer)] = c.value; }),
                   c.fragments);
  }
  json no_head = testing::base_config("stories260k");
  no_head["model"]["decoder"].erase("head_size");
  expect_refused(testing::make_folder("mismatch_no_head", "stories260k", no_head), {"model.decoder.head_size: missing"});
}

TEST(Import, MissingFilesAreNotFound) {
  expect_refused(testing::make_folder("no_graph", "stories260k",
                                      [](json& c) { c["model"]["decoder"]["filename"] = "decoder.onnx"; }),
                 {"decoder.onnx", "not found"}, ErrorCode::kNotFound);
  expect_refused(fs::path(OGAI_BINARY_DIR) / "importer_folders/none", {"genai_config.json", "not found"},
                 ErrorCode::kNotFound);
}

// ORT GenAI stops on genai_config.json's eos_token_id alone: side files that disagree are reported
// (once, when the folder loads), not refused and not followed.
TEST(Import, TheConfigsEosIdsAreTheStopSet) {
  const fs::path dir = testing::make_folder("eos_extra", "stories260k");
  write_file(dir / "generation_config.json", R"({"eos_token_id": [2, 5]})");
  ImportResult r = import_genai_folder(dir);
  EXPECT_EQ(r.facts.eos_ids, (std::vector<std::int64_t>{2}));
  ASSERT_EQ(r.facts.warnings.size(), 1u);
  EXPECT_NE(r.facts.warnings[0].find("generation_config.json eos_token_id is [2, 5]"), std::string::npos);
  metadata::ValidationReport report = metadata::validate_package(dir);
  ASSERT_TRUE(report.valid()) << report.diagnostics.text();
  EXPECT_EQ(report.package->files.text.generation_config_eos_ids, (std::vector<std::int64_t>{2}));
  EXPECT_FALSE(report.package->files.text.tokenizer_config_eos_token);
  // A model-builder export: eos_token_id 1 in the config, tokenizer_config.json's eos_token id 2.
  const fs::path builder = testing::make_folder("eos_tokenizer_config", "stories260k",
                                                [](json& c) { c["model"]["eos_token_id"] = json::array({1}); });
  write_file(builder / "tokenizer_config.json", R"({"eos_token": "</s>"})");
  r = import_genai_folder(builder);
  EXPECT_EQ(r.facts.eos_ids, (std::vector<std::int64_t>{1}));
  std::string said;
  for (const auto& line : r.facts.warnings) said += line + "\n";
  EXPECT_NE(said.find("tokenizer_config.json eos_token '</s>' is id 2 but genai_config.json's model.eos_token_id [1] "
                      "is the stop set"), std::string::npos) << said;
  // A list: every id stops; the document's header says v1 holds only the first.
  const fs::path listed = testing::make_folder("eos_listed", "stories260k", [](json& c) { c["model"]["eos_token_id"] = {2, 5}; });
  r = import_genai_folder(listed);
  EXPECT_EQ(r.facts.eos_ids, (std::vector<std::int64_t>{2, 5}));
  EXPECT_NE(r.document.find("model.eos_token_id [2, 5]: v1 holds one EOS id"), std::string::npos);
  report = metadata::validate_package(listed);
  EXPECT_EQ(report.package->files.text.generation_config_eos_ids, (std::vector<std::int64_t>{2, 5}));
}

// ONNX Runtime GenAI's own folders (../shared/ortgenai) import as they are; the paged-attention one
// stays refused by name.
TEST(Import, OrtGenaiTestFoldersImport) {
  const fs::path shared = fs::path(OGAI_SHARED_DIR) / "ortgenai";
  for (const char* name : {"dummy-decoder", "tiny-qwen35-cuda", "tiny-random-gpt2-fp32", "tiny-random-lfm2-fp32"}) {
    SCOPED_TRACE(name);
    metadata::ValidationReport report = metadata::validate_package(shared / name);
    ASSERT_TRUE(report.valid()) << report.diagnostics.text();
    ASSERT_TRUE(report.package->decoder && report.package->imported);
    EXPECT_EQ(report.package->imported->has_tokenizer, std::string(name) == "tiny-random-gpt2-fp32");
  }
  const auto gpt2 = metadata::validate_package(shared / "tiny-random-gpt2-fp32");
  const auto& pairs = gpt2.package->decoder->kv_pairs;
  ASSERT_EQ(pairs.size(), 5u);
  EXPECT_EQ(pairs[0].input, "past_0");
  EXPECT_EQ(pairs[0].role, metadata::KvRole::kCombined);
  EXPECT_EQ(pairs[0].geometry.sequence_axis, 3);
  EXPECT_EQ(pairs[0].geometry.dims, (std::vector<std::int64_t>{2, -1, 4, -1, 8}));
  const auto lfm2 = metadata::validate_package(shared / "tiny-random-lfm2-fp32");
  const auto& abi = *lfm2.package->decoder;
  ASSERT_EQ(abi.kv_pairs.size(), 4u);
  EXPECT_EQ(abi.kv_pairs[0].input, "past_key_values.1.key");
  EXPECT_EQ(abi.kv_pairs[2].layer, 3);
  ASSERT_EQ(abi.state_pairs.size(), 2u);
  EXPECT_EQ(abi.state_pairs[1].input, "past_conv.2");
  EXPECT_EQ(abi.state_pairs[1].output, "present_conv.2");
  const auto qwen = metadata::validate_package(shared / "tiny-qwen35-cuda");
  EXPECT_EQ(qwen.package->imported->session.provider_options.at(0).key, "enable_cuda_graph");
  expect_refused(shared / "synthetic-paged",
                 {"graph input 'cumulative_sequence_lengths'", "not one ogai feeds", "paged-attention interface"});
}

// LFM2-style layer plans: the conv states and KV layers must be the ones layer_types names.
TEST(Import, LayerTypesMustMatchTheGraphsStates) {
  const fs::path shared = fs::path(OGAI_SHARED_DIR) / "ortgenai" / "tiny-random-lfm2-fp32";
  auto folder = [&](const std::string& name, const std::function<void(json&)>& edit) {
    const fs::path dir = fs::path(OGAI_BINARY_DIR) / "importer_folders" / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(shared / "decoder.onnx", dir / "decoder.onnx");  // a link would leave the folder: refused
    json config = json::parse(read_file(shared / "genai_config.json"));
    edit(config);
    write_file(dir / "genai_config.json", config.dump());
    return dir;
  };
  expect_refused(folder("lfm2_types", [](json& c) { c["model"]["decoder"]["layer_types"] = {"full_attention", "full_attention", "conv", "full_attention"}; }),
                 {"layer_types has full_attention layers [0, 1, 3]", "KV layers [1, 3]"});
  expect_refused(folder("lfm2_cache", [](json& c) { c["model"]["decoder"]["conv_cache_size"] = 3; }),
                 {"model.decoder.conv_cache_size is 3", "'past_conv.0'", "[batch_size, 32, 4]"});
  expect_refused(folder("lfm2_no_types", [](json& c) { c["model"]["decoder"].erase("layer_types"); }),
                 {"model.decoder.layer_types: missing", "past_conv.0"});
  expect_refused(folder("lfm2_no_present", [](json& c) { c["model"]["decoder"]["outputs"].erase("present_conv_names"); }),
                 {"model.decoder.outputs.present_conv_names: missing"});
}

TEST(Import, SlidingLayersAreCheckedAgainstTheirGeometry) {
  expect_refused(testing::make_folder("e2b_head", "tiny-e2b", [](json& c) { c["model"]["decoder"]["head_size"] = 32; }),
                 {"model.decoder.head_size is 32", "'past_key_values.0.key'", "head size 16"});
  // Layer 5 (head size 16) declared full beside full layer 4 (head size 32).
  expect_refused(testing::make_folder("e2b_layers", "tiny-e2b",
                                      [](json& c) { c["model"]["decoder"]["sliding_window"]["layers"] = {0, 1, 2, 3}; }),
                 {"full-attention KV layers differ", "past_key_values.5.key", "past_key_values.4.key"});
  expect_refused(testing::make_folder("e2b_range", "tiny-e2b",
                                      [](json& c) { c["model"]["decoder"]["sliding_window"]["layers"] = {0, 9}; }),
                 {"model.decoder.sliding_window.layers lists 9", "KV layers 0..5"});
  // The graph's attention nodes: window 8 and 4 heads.
  expect_refused(testing::make_folder("e2b_window", "tiny-e2b",
                                      [](json& c) { c["model"]["decoder"]["sliding_window"]["window_size"] = 4; }),
                 {"model.decoder.sliding_window.window_size is 4", "sliding KV layer 0", "local_window_size 8"});
  expect_refused(testing::make_folder("e2b_heads", "tiny-e2b",
                                      [](json& c) { c["model"]["decoder"]["num_attention_heads"] = 8; }),
                 {"model.decoder.num_attention_heads is 8", "GroupQueryAttention of KV layer 0", "num_heads 4"});
  // Without a window the full layer's head size 32 is a mismatch.
  expect_refused(testing::make_folder("e2b_nowindow", "tiny-e2b",
                                      [](json& c) { c["model"]["decoder"].erase("sliding_window"); }),
                 {"model.decoder.head_size is 16", "'past_key_values.4.key'", "head size 32"});
}

TEST(Import, BuilderExportsImportAndTheirAttentionNodesAreChecked) {
  for (const std::string source : {"builder-llama", "builder-llama-mha"}) {
    SCOPED_TRACE(source);
    validated_import(testing::make_folder("import_" + source, source));
    const char* op = source == "builder-llama" ? "GroupQueryAttention" : "MultiHeadAttention";
    expect_refused(testing::make_folder("heads_" + source, source, [](json& c) { c["model"]["decoder"]["num_attention_heads"] = 8; }),
                   {"model.decoder.num_attention_heads is 8", std::string(op) + " of KV layer 0", "num_heads 4"});
  }
}

// Folders over a generated text-format graph: interfaces ogai cannot feed.
class GraphRefusal : public ::testing::Test {
 protected:
  static GraphSpec decoder(int layers = 2, const std::string& past = "past_sequence") {
    GraphSpec g;
    g.inputs = {{"input_ids", "int64", {"batch", "sequence"}}, {"attention_mask", "int64", {"batch", "total"}}};
    g.outputs = {{"logits", "float32", {"batch", "sequence", "512"}}};
    for (int i = 0; i < layers; ++i)
      for (const char* kv : {"key", "value"}) {
        g.inputs.push_back({"past_key_values." + std::to_string(i) + "." + kv, "float32", {"batch", "2", past, "4"}});
        g.outputs.push_back({"present." + std::to_string(i) + "." + kv, "float32", {"batch", "2", "total", "4"}});
      }
    return g;
  }
  // A com.microsoft GroupQueryAttention reading layer `layer`'s past, with integer attributes.
  static std::string gqa(int layer, const std::string& attributes) {
    const std::string past = "past_key_values." + std::to_string(layer);
    return "  node { input: \"q\" input: \"k\" input: \"v\" input: \"" + past + ".key\" input: \"" + past +
           ".value\" op_type: \"GroupQueryAttention\" domain: \"com.microsoft\" " + attributes + " }\n";
  }
  static std::string with_nodes(const GraphSpec& graph, const std::string& nodes) {
    std::string text = metadata::testing::graph_textproto(graph);
    const std::string anchor = "  name: \"generated\"\n";
    return text.replace(text.find(anchor), anchor.size(), anchor + nodes);
  }
  static fs::path folder(const std::string& name, const GraphSpec& graph, int layers = 2) {
    json c = testing::base_config("stories260k");
    c["model"]["decoder"]["filename"] = "model.onnx.textproto";
    c["model"]["decoder"]["head_size"] = 4;
    c["model"]["decoder"]["num_key_value_heads"] = 2;
    c["model"]["decoder"]["num_hidden_layers"] = layers;
    const fs::path dir = testing::make_folder("graph_" + name, "stories260k", c);
    write_file(dir / "model.onnx.textproto", metadata::testing::graph_textproto(graph));
    return dir;
  }
};

TEST_F(GraphRefusal, TheGeneratedBaseImports) { validated_import(folder("base", decoder())); }

TEST_F(GraphRefusal, InputsOgaiDoesNotFeed) {
  GraphSpec g = decoder();
  g.inputs.push_back({"past_sequence_length", "int32", {"1"}});
  expect_refused(folder("seqlen", g), {"graph input 'past_sequence_length' is not one ogai feeds", "sequence-length"});
  g = decoder();
  g.inputs.push_back({"block_table", "int32", {"batch", "blocks"}});
  expect_refused(folder("paged", g), {"'block_table'", "paged-attention interface"});
  g = decoder();
  g.inputs[0] = {"inputs_embeds", "float32", {"batch", "sequence", "64"}};
  expect_refused(folder("embeds", g), {"'inputs_embeds'", "multimodal"});
  g = decoder();
  g.inputs.push_back({"position_ids", "int64", {"3", "batch", "sequence"}});
  expect_refused(folder("mrope", g), {"'position_ids' (position_ids)", "rank 2"});
}

TEST_F(GraphRefusal, CachesOgaiDoesNotManage) {
  expect_refused(folder("static", decoder(2, "128")), {"fixed sequence axis", "static cache"});
  GraphSpec g = decoder();
  for (auto& p : g.inputs)
    if (p.name.starts_with("past_key_values.1.")) p.dims[2] = "past_sliding";
  const fs::path dir = folder("windowed", g);
  json config = json::parse(read_file(dir / "genai_config.json"));
  config["model"]["decoder"]["sliding_window"] = {
      {"window_size", 4}, {"slide_key_value_cache", false}, {"slide_inputs", false}, {"layers", {1}}};
  write_file(dir / "genai_config.json", config.dump());
  expect_refused(dir, {"'past_sliding'", "window-sized KV cache", "windowed_kv_cache=false"});
}

TEST_F(GraphRefusal, AttentionNodesAgainstTheConfig) {
  const std::string heads = "attribute { name: \"num_heads\" i: 8 type: INT } ";
  fs::path dir = folder("gqa_ok", decoder());
  write_file(dir / "model.onnx.textproto", with_nodes(decoder(), gqa(0, heads) + gqa(1, heads)));
  validated_import(dir);
  dir = folder("gqa_heads", decoder());
  write_file(dir / "model.onnx.textproto", with_nodes(decoder(), gqa(1, "attribute { name: \"num_heads\" i: 2 type: INT }")));
  expect_refused(dir, {"model.decoder.num_attention_heads is 8", "KV layer 1", "num_heads 2"});
  dir = folder("gqa_window", decoder());
  write_file(dir / "model.onnx.textproto",
             with_nodes(decoder(), gqa(1, "attribute { name: \"local_window_size\" i: 16 type: INT }")));
  expect_refused(dir, {"KV layer 1", "window of 16", "declares no model.decoder.sliding_window"});
  dir = folder("gqa_windowed_cache", decoder());
  write_file(dir / "model.onnx.textproto",
             with_nodes(decoder(), gqa(0, "attribute { name: \"sliding_window_cache\" i: 1 type: INT }")));
  expect_refused(dir, {"KV layer 0", "sliding_window_cache=1", "windowed_kv_cache=false"});
}

TEST_F(GraphRefusal, MalformedKvLayers) {
  GraphSpec g = decoder(3);
  g.inputs.erase(g.inputs.begin() + 4, g.inputs.begin() + 6);  // past_key_values.1.*
  g.outputs.erase(g.outputs.begin() + 3, g.outputs.begin() + 5);
  expect_refused(folder("gap", g, 3), {"numbered 0..1 without gaps", "layer 1 is missing"});
  g = decoder();
  g.outputs.pop_back();  // present.1.value
  expect_refused(folder("no_present", g), {"KV layer 1", "present_value_names 'present.1.value'"});
  g = decoder();
  g.outputs[1].dims = {"batch", "2", "total", "8"};  // present.0.key
  expect_refused(folder("present_shape", g), {"KV layer 0", "'present.0.key'", "[batch, 2, total, 8]"});
  g = decoder();
  g.outputs.push_back({"hidden", "float32", {"batch", "sequence", "64"}});
  expect_refused(folder("unnamed_output", g), {"graph output 'hidden'", "model.decoder.outputs.hidden_states"});
  g = decoder();
  g.outputs[0].dims = {"batch", "512"};
  expect_refused(folder("logits_rank", g), {"logits output 'logits'", "[batch, sequence, vocab]"});
}

}  // namespace
}  // namespace ogai::importer
