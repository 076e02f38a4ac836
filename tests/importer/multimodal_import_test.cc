// Importing ONNX Runtime GenAI multimodal folders (importer/multimodal_ports.h,
// importer/processor_import.h): the shared gemma4 / phi3-v / multimodal-decoder-with-input-ids
// folders (../shared/ortgenai, read in place or linked into the build tree beside the files
// ORT GenAI's snapshot lacks) and the computing stand-ins tools/genai/multimodal.py writes
// (CTest fixture `importer_multimodal_folders`); Gemma-4's audio is audio_import_test.cc's. Each imported document is checked by ogai's own
// validator and its concrete facts (ports, dtypes, the programs' ops and parameters) are read back
// from the text; every processor step or key the importer cannot express is refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "multimodal_support.h"

namespace ogai::importer {
namespace {

// ---- the shared folders -------------------------------------------------------------------

// gemma4 as ORT GenAI ships it (plus the decoder and tokenizer its snapshot lacks): the speech
// session's features have nowhere to go (the embedding graph takes image_features only), so the
// import names the gap rather than drop the speech session.
TEST(MultimodalImport, SharedGemma4NamesTheEmbeddingInputItsSpeechSessionNeeds) {
  expect_refused([] { import_genai_folder(kGenerated / "gemma4"); },
                 {"model.speech", "dummy_embedding.onnx", "has no input 'audio_features'",
                  "model.embedding.inputs.audio_features"});
}

// Its vision half: the v1 multi-component document in catalogue 03's shape, with the
// Gemma4ImageTransform of processor_config.json as a preprocessing.image program.
TEST(MultimodalImport, SharedGemma4VisionPipeline) {
  json config = config_of(kShared / "gemma4");
  config["model"].erase("speech");
  std::string text;
  const json doc = imported(linked_folder("gemma4-vision", kGenerated / "gemma4", config), &text);
  const json& image = doc["preprocessing"]["image"];
  EXPECT_EQ(ops(image), (std::vector<std::string>{"decode_rgb", "resize", "rescale", "patchify", "emit_patch_coordinates"}));
  const json& resize = image["transforms"][1];
  EXPECT_EQ(resize["mode"], "aspect_ratio_patch_budget");
  EXPECT_EQ(resize["interpolation"], "bicubic");
  EXPECT_EQ(resize["patch_size"], 16);
  EXPECT_EQ(resize["max_patches"], 280 * 3 * 3);  // max_soft_tokens x pooling_kernel_size^2
  EXPECT_EQ(resize["pooling_kernel_size"], 3);
  EXPECT_NEAR(image["transforms"][2]["scale"].get<double>(), 1.0 / 255.0, 1e-12);
  const json& patchify = image["transforms"][3];
  EXPECT_EQ(patchify["patch_size"], 16);
  EXPECT_EQ(patchify["channel_order"], "channels_last");
  EXPECT_EQ(patchify["patch_order"], "raster");
  EXPECT_EQ(patchify["coordinate_order"], "xy");
  ASSERT_EQ(image["outputs"].size(), 2u);
  EXPECT_EQ(image["outputs"][0]["name"], "image.pixel_values");
  EXPECT_EQ(image["outputs"][0]["content"], "pixels");
  EXPECT_EQ(image["outputs"][0]["dtype"], "float32");
  EXPECT_EQ(image["outputs"][1]["name"], "image.pixel_position_ids");
  EXPECT_EQ(image["outputs"][1]["content"], "patch_coordinates");
  EXPECT_EQ(image["outputs"][1]["dtype"], "int64");

  const json& wf = workflow(doc);
  EXPECT_EQ(wf["manifest"]["adapter_abis"]["onnx-genai.image-preprocess"], "1");
  EXPECT_EQ(wf["inputs"]["request.image"]["contract"]["dtype"], "uint8");
  EXPECT_EQ(wf["inputs"]["request.image"]["role"]["role"], "media");
  EXPECT_EQ(wf["inputs"]["request.image"]["required"], true);
  EXPECT_EQ(image["outputs"][0]["contract"]["shape"], json({"num_patches", 768}));
  EXPECT_EQ(image["outputs"][1]["contract"]["shape"], json({"num_patches", 2}));
  EXPECT_EQ(wf["inputs"]["request.input_ids"]["contract"]["dtype"], "int64");  // the embedding's ids
  const json& c = wf["components"];
  EXPECT_EQ(c["image_preprocess"]["implementation"]["abi"], "onnx-genai.image-preprocess");
  EXPECT_EQ(c["vision"]["implementation"]["artifact"], "dummy_vision.onnx");
  EXPECT_EQ(c["vision"]["ports"]["inputs"]["pixel_values"]["shape"], json({"num_patches", 768}));
  EXPECT_EQ(c["vision"]["ports"]["inputs"]["pixel_position_ids"]["dtype"], "int64");
  EXPECT_EQ(c["vision"]["ports"]["outputs"]["image_features"]["shape"], json({"num_soft_tokens", 2048}));
  EXPECT_EQ(c["embedding"]["ports"]["inputs"]["image_features"]["shape"], json({"num_image_tokens", 2048}));
  EXPECT_EQ(c["embedding"]["ports"]["outputs"]["inputs_embeds"]["shape"], json({"batch_size", "sequence_length", 2048}));
  const json& decoder = c["decoder"];
  EXPECT_EQ(decoder["implementation"]["artifact"], "dummy_text.onnx");
  EXPECT_EQ(decoder["ports"]["roles"]["inputs_embeds"], "inputs_embeds");
  EXPECT_FALSE(decoder["ports"]["inputs"].contains("input_ids"));
  EXPECT_EQ(decoder["ports"]["inputs"]["past_key_values.0.key"]["shape"],
            json({"batch_size", 4, "past_sequence_length", 256}));
  EXPECT_EQ(step_components(doc),
            (std::vector<std::string>{"image_preprocess", "vision", "embedding", "decoder", "emit"}));
  const json& steps = wf["steps"];
  EXPECT_EQ(steps[0]["inputs"]["encoded"], "request.image");
  EXPECT_EQ(steps[1]["inputs"]["pixel_position_ids"], "image.pixel_position_ids");
  EXPECT_EQ(steps[2]["inputs"]["image_features"], "vision.image_features");
  EXPECT_EQ(steps[2]["inputs"]["input_ids"], "request.input_ids");
  EXPECT_EQ(steps[3]["inputs"]["inputs_embeds"], "embedding.inputs_embeds");
  EXPECT_EQ(steps[3]["inputs"]["past_key_values.0.key"], "request.full_key_0");
  // The decoder's KV state and serving inputs as for a text decoder.
  EXPECT_EQ(wf["state"]["full_key_0"]["service_group"], "full_attention");
  EXPECT_EQ(wf["serving"]["state_service"]["groups"]["full_attention"]["aliasing"], "permitted");
  EXPECT_EQ(wf["inputs"]["request.accepted_len"]["source"]["name"], "accepted_len");
  EXPECT_EQ(doc["model"]["vocab_size"], 262144);
  EXPECT_EQ(doc["package"]["tokenizer"]["special_tokens"]["eos"]["id"], 1);
  // The program is Hugging Face's (docs/media.md): no processor difference in the header.
  EXPECT_EQ(text.find("# multimodal: processor_config.json"), std::string::npos) << text;
}

// phi3-v: Phi3ImageTransform becomes Hugging Face's Phi3VImageProcessor as a program (the HD
// transform tiles, CLIP normalization, the canvas size, crops padded to num_crops + 1), in the
// vision graph's float16; the program is procimage's (docs/media.md) op for op.
TEST(MultimodalImport, SharedPhi3vBecomesTheHdProgram) {
  std::string text;
  const json doc = imported(kShared / "phi3-v", &text);
  const json& image = doc["preprocessing"]["image"];
  EXPECT_EQ(ops(image), (std::vector<std::string>{"decode", "convert_rgb", "tile", "rescale", "normalize",
                                                  "emit_transformed_size", "emit_token_count", "pad"}));
  const json& t = image["transforms"];
  EXPECT_EQ(t[1]["background"], json({255, 255, 255}));
  EXPECT_EQ(t[2]["mode"], "hd_transform");
  EXPECT_EQ(t[2]["tile_size"], 336);
  EXPECT_EQ(t[2]["max_tiles"], 4);  // num_crops
  EXPECT_EQ(t[2]["interpolation"], "bilinear");
  EXPECT_EQ(t[2]["canvas_pad_value"], 255);
  EXPECT_EQ(t[2]["thumbnail_order"], "prepend");
  EXPECT_NEAR(t[3]["scale"].get<double>(), 1.0 / 255.0, 1e-12);
  EXPECT_NEAR(t[4]["mean"][0].get<double>(), 0.48145466, 1e-9);
  EXPECT_NEAR(t[4]["std"][2].get<double>(), 0.27577711, 1e-9);
  EXPECT_EQ(t[6]["tokens_per_tile"], 144);  // num_img_tokens
  EXPECT_EQ(t[7]["target_length"], 5);      // num_crops + 1
  ASSERT_EQ(image["outputs"].size(), 2u);
  EXPECT_EQ(image["outputs"][0]["name"], "image.pixel_values");
  EXPECT_EQ(image["outputs"][0]["dtype"], "float16");
  EXPECT_EQ(image["outputs"][0]["source"], t[7]["outputs"][0]);
  EXPECT_EQ(image["outputs"][0]["contract"]["shape"], json({"num_images", "max_num_crops", 3, "height", "width"}));
  EXPECT_EQ(image["outputs"][1]["name"], "image.image_sizes");
  EXPECT_EQ(image["outputs"][1]["content"], "transformed_size");
  EXPECT_EQ(image["outputs"][1]["source"], t[5]["outputs"][0]);
  EXPECT_EQ(step_components(doc), (std::vector<std::string>{"image_preprocess", "vision", "embedding", "decoder", "emit"}));
  EXPECT_NE(text.find("# multimodal: processor_config.json processor.transforms[2].operation Phi3ImageTransform: "
                      "Hugging Face's Phi3VImageProcessor with num_crops 4"), std::string::npos) << text;
}

TEST(MultimodalImport, Phi3TransformSettingsAreRefusedByName) {
  const json shared = json::parse(read_file(kShared / "phi3-v" / "processor_config.json"));
  const auto refused = [](const json& p, const std::vector<std::string>& fragments) {
    expect_refused([&] {
      parse_image_processor(p.dump(), "dir/processor_config.json", {{"pixel_values", "image.pixel_values", DataType::kFloat16}});
    }, fragments);
  };
  json p = shared;
  p["processor"]["transforms"][2]["operation"]["attrs"].erase("num_crops");
  refused(p, {"processor.transforms[2].operation.attrs.num_crops", "missing", "16"});
  p = shared;
  p["processor"]["transforms"][2]["operation"]["attrs"]["num_img_tokens"] = 150;
  refused(p, {"processor.transforms[2].operation.attrs.num_img_tokens", "150", "square"});
  p = shared;
  p["processor"]["transforms"][2]["operation"]["attrs"]["hd_num"] = 4;
  refused(p, {"processor.transforms[2].operation.attrs.hd_num", "num_crops, num_img_tokens"});
  p = shared;
  p["processor"]["transforms"].erase(1);  // BGR reaches the HD transform
  refused(p, {"processor.transforms[1].operation.type", "BGR order"});
  p = shared;
  p["processor"]["transforms"].insert(p["processor"]["transforms"].begin() + 2,
                                      json::object({{"operation", {{"type", "Rescale"}}}}));
  refused(p, {"processor.transforms[3].operation.type", "after another pixel operation"});
}

// Without a processor config its vision inputs are request inputs (preprocessed by the caller).
TEST(MultimodalImport, SharedPhi3vWithoutProcessorTakesPreprocessedTensors) {
  std::string text;
  const json doc =
      imported(linked_folder("phi3-v-raw", kShared / "phi3-v", config_of(kShared / "phi3-v"), {"processor_config.json"}),
               &text);
  EXPECT_FALSE(doc.contains("preprocessing"));
  const json& wf = workflow(doc);
  const json& pixels = wf["inputs"]["request.pixel_values"];
  EXPECT_EQ(pixels["contract"]["dtype"], "float16");
  EXPECT_EQ(pixels["contract"]["shape"], json({"num_images", "max_num_crops", 3, "height", "width"}));
  EXPECT_EQ(pixels["role"]["role"], "media");
  EXPECT_EQ(wf["inputs"]["request.image_sizes"]["contract"]["dtype"], "int64");
  EXPECT_FALSE(wf["components"].contains("image_preprocess"));
  EXPECT_EQ(wf["components"]["embedding"]["ports"]["inputs"]["image_features"]["dtype"], "float16");
  EXPECT_EQ(wf["components"]["vision"]["ports"]["outputs"]["image_features"]["dtype"], "float16");
  EXPECT_FALSE(wf["components"]["decoder"]["ports"]["inputs"].contains("position_ids"));
  EXPECT_EQ(step_components(doc), (std::vector<std::string>{"vision", "embedding", "decoder", "emit"}));
  EXPECT_EQ(wf["steps"][0]["inputs"]["pixel_values"], "request.pixel_values");
  EXPECT_EQ(doc["model"]["vocab_size"], 32064);
  EXPECT_NE(text.find("no processor_config.json beside the graph"), std::string::npos) << text;
}

// A phi3v decoder that also takes input_ids: both it and the embedding read request.input_ids.
TEST(MultimodalImport, SharedDecoderWithInputIds) {
  const json doc = imported(kShared / "multimodal-decoder-with-input-ids");
  const json& wf = workflow(doc);
  const json& roles = wf["components"]["decoder"]["ports"]["roles"];
  EXPECT_EQ(roles["inputs_embeds"], "inputs_embeds");
  EXPECT_EQ(roles["input_ids"], "token_ids");
  EXPECT_EQ(wf["inputs"]["request.input_ids"]["contract"]["dtype"], "int32");
  EXPECT_EQ(wf["steps"][2]["inputs"]["input_ids"], "request.input_ids");
  EXPECT_EQ(wf["steps"][2]["inputs"]["inputs_embeds"], "embedding.inputs_embeds");
  EXPECT_EQ(wf["inputs"]["request.pixel_values"]["contract"]["shape"],
            json({"num_images", "max_crops", 3, "height", "width"}));
  EXPECT_FALSE(wf["serving"]["state_service"]["groups"]["full_attention"].contains("aliasing"));
  EXPECT_EQ(doc["package"]["tokenizer"]["special_tokens"]["bos"]["id"], 1);
}

// ---- the computing stand-ins ---------------------------------------------------------------

TEST(MultimodalImport, ComputingGemma4StandIn) {
  const json doc = imported(kGenerated / "mm-gemma4");
  const json& resize = doc["preprocessing"]["image"]["transforms"][1];
  EXPECT_EQ(resize["patch_size"], 4);
  EXPECT_EQ(resize["max_patches"], 16 * 2 * 2);
  EXPECT_EQ(resize["pooling_kernel_size"], 2);
  EXPECT_EQ(doc["preprocessing"]["image"]["transforms"][3]["patch_size"], 4);
  const json& c = workflow(doc)["components"];
  EXPECT_EQ(c["vision"]["ports"]["inputs"]["pixel_values"]["shape"], json({"num_patches", 48}));
  EXPECT_EQ(c["image_preprocess"]["ports"]["outputs"]["pixel_values"]["shape"], json({"num_patches", 48}));
  EXPECT_EQ(c["decoder"]["ports"]["roles"]["position_ids"], "position_ids");
}

TEST(MultimodalImport, ComputingPhi3vStandIn) {
  const json doc = imported(kGenerated / "mm-phi3v");
  EXPECT_EQ(workflow(doc)["inputs"]["request.pixel_values"]["contract"]["dtype"], "float16");
  EXPECT_EQ(workflow(doc)["components"]["embedding"]["ports"]["inputs"]["image_features"]["dtype"], "float16");
}

// Qwen2.5-VL and Qwen3-VL: the decoder's 3-D mRoPE positions are declared as ogai's extension
// (importer/mrope.h): the manifest lists ogai.mrope, an application input mrope_position_ids
// [3, batch, sequence] (batch axis 1) feeds the port (its role stays position_ids); Qwen3.5's
// hybrid text decoder is refused by type.
void expect_mrope_document(const json& doc) {
  const json& wf = workflow(doc);
  const auto& caps = wf["manifest"]["capabilities"];
  EXPECT_NE(std::find(caps.begin(), caps.end(), "ogai.mrope"), caps.end()) << caps.dump();
  const json& input = wf["inputs"]["request.mrope_position_ids"];
  EXPECT_EQ(input["source"]["kind"], "application");
  EXPECT_EQ(input["source"]["name"], "mrope_position_ids");
  EXPECT_EQ(input["contract"]["shape"], json({3, "batch_size", "sequence_length"}));
  EXPECT_EQ(input["contract"]["batch_layout"]["axis"], 1);
  EXPECT_FALSE(wf["inputs"].contains("request.position_ids"));
  const json& decoder = wf["components"]["decoder"]["ports"];
  EXPECT_EQ(decoder["inputs"]["position_ids"]["shape"], json({3, "batch_size", "sequence_length"}));
  EXPECT_EQ(decoder["roles"]["position_ids"], "position_ids");
  bool bound = false;
  for (const auto& step : wf["steps"])
    if (step.value("component", "") == "decoder") bound = step["inputs"]["position_ids"] == "request.mrope_position_ids";
  EXPECT_TRUE(bound);
}

TEST(MultimodalImport, QwenVlDecoderPositionsAreDeclaredAsTheMropeExtension) {
  expect_mrope_document(imported(kGenerated / "mm-qwen2_5_vl"));
  json config = config_of(kGenerated / "mm-qwen2_5_vl");
  config["model"]["type"] = "qwen3_vl";
  expect_mrope_document(imported(linked_folder("qwen3_vl", kGenerated / "mm-qwen2_5_vl", config)));
  config["model"]["type"] = "qwen3_5";
  expect_refused([&] { import_genai_folder(linked_folder("qwen3_5", kGenerated / "mm-qwen2_5_vl", config)); },
                 {"model.type", "'qwen3_5'", "linear-attention"});
  // Another multimodal type with 3-D positions keeps the refusal.
  config["model"]["type"] = "gemma4";
  expect_refused([&] { import_genai_folder(linked_folder("gemma4_3d", kGenerated / "mm-qwen2_5_vl", config)); },
                 {"text.onnx", "'position_ids'", "[3, batch_size, sequence_length]", "ogai.mrope"});
}

TEST(MultimodalImport, QwenProcessorBecomesAPixelAreaProgram) {
  const fs::path file = kGenerated / "mm-qwen2_5_vl" / "processor_config.json";
  ProcessorProgram p = import_image_processor(
      file, {{"pixel_values", "image.pixel_values", DataType::kFloat32}, {"image_grid_thw", "image.image_grid_thw", DataType::kInt64}});
  const json program = json::parse(p.program.dump());
  EXPECT_EQ(ops(program),
            (std::vector<std::string>{"decode_rgb", "resize", "rescale", "normalize", "patchify", "emit_grid_coordinates"}));
  const json& resize = program["transforms"][1];
  EXPECT_EQ(resize["mode"], "pixel_area");
  EXPECT_EQ(resize["min_pixels"], 3136);
  EXPECT_EQ(resize["max_pixels"], 12845056);
  EXPECT_EQ(resize["size_multiple"], 28);  // patch_size 14 x merge_size 2
  EXPECT_NEAR(program["transforms"][3]["mean"][0].get<double>(), 0.48145466, 1e-9);
  EXPECT_NEAR(program["transforms"][3]["std"][2].get<double>(), 0.27577711, 1e-9);
  const json& patchify = program["transforms"][4];
  EXPECT_EQ(patchify["patch_size"], 14);
  EXPECT_EQ(patchify["temporal_patch_size"], 2);
  EXPECT_EQ(patchify["merge_size"], 2);
  EXPECT_EQ(program["outputs"][1]["content"], "grid_dimensions");
  EXPECT_EQ(program["outputs"][1]["source"], program["transforms"][5]["outputs"][0]);
}

// ---- refusals of processor keys and steps ------------------------------------------------

json gemma4_processor() { return json::parse(read_file(kShared / "gemma4" / "processor_config.json")); }

void expect_processor_refused(const json& processor, const std::vector<std::string>& fragments) {
  expect_refused([&] {
    parse_image_processor(processor.dump(), "dir/processor_config.json",
                          {{"pixel_values", "image.pixel_values", DataType::kFloat32}});
  }, fragments);
}

TEST(MultimodalImport, UnexpressibleProcessorKeysAreRefusedByName) {
  json p = gemma4_processor();
  p["processor"]["transforms"][1]["operation"]["attrs"]["resample"] = 3;
  expect_processor_refused(p, {"processor_config.json", "processor.transforms[1].operation.attrs.resample", "'3'"});
  p = gemma4_processor();
  p["processor"]["transforms"][1]["operation"]["type"] = "SiglipTransform";
  expect_processor_refused(p, {"processor.transforms[1].operation.type", "'SiglipTransform'"});
  p = gemma4_processor();
  p["processor"]["transforms"][0]["operation"]["attrs"]["color_space"] = "BGR";
  expect_processor_refused(p, {"processor.transforms[1].operation.type", "BGR order"});
  p = gemma4_processor();
  p["processor"]["output_aligner"] = "pad";
  expect_processor_refused(p, {"processor.output_aligner"});
  p = gemma4_processor();
  p["processor"]["transforms"].erase(1);
  p["processor"]["transforms"].push_back(
      {{"operation", {{"type", "Resize"}, {"attrs", {{"height", 224}, {"width", 224}}}}}});
  expect_processor_refused(p, {"processor.transforms[1].operation.attrs.keep_aspect_ratio", "without cropping"});
}

// The graph takes a tensor the processor does not make: refused naming both.
TEST(MultimodalImport, AGraphInputTheProcessorDoesNotMakeIsRefused) {
  expect_refused([] {
    import_image_processor(kShared / "gemma4" / "processor_config.json",
                           {{"image_sizes", "image.image_sizes", DataType::kInt64}});
  }, {"the graph takes 'image_sizes'", "processor_config.json does not make", "pixel_values, pixel_position_ids"});
}

// Config-level refusals of the multimodal sections.
TEST(MultimodalImport, ConfigRefusalsNameTheirField) {
  json config = config_of(kGenerated / "mm-gemma4");
  config["model"]["vision"]["adapter_filename"] = "vision.lora";
  expect_refused([&] { import_genai_folder(linked_folder("adapter", kGenerated / "mm-gemma4", config)); },
                 {"model.vision.adapter_filename", "LoRA"});
  config = config_of(kGenerated / "mm-gemma4");
  config["model"]["vision"]["inputs"]["pixel_mask"] = "mask";
  expect_refused([&] { import_genai_folder(linked_folder("names", kGenerated / "mm-gemma4", config)); },
                 {"model.vision.inputs.pixel_mask", "pixel_values, pixel_position_ids"});
  config = config_of(kGenerated / "mm-gemma4");
  config["model"]["embedding"]["outputs"]["per_layer_inputs"] = "per_layer";
  expect_refused([&] { import_genai_folder(linked_folder("per-layer", kGenerated / "mm-gemma4", config)); },
                 {"model.embedding.outputs.per_layer_inputs"});
  config = config_of(kGenerated / "mm-gemma4");
  config["model"]["vision"]["filename"] = "../vision.onnx";
  expect_refused([&] { import_genai_folder(linked_folder("escape", kGenerated / "mm-gemma4", config)); },
                 {"model.vision.filename"}, ErrorCode::kNotFound);
  config = config_of(kGenerated / "mm-gemma4");
  config["model"]["embedding"]["filename"] = "text.onnx";
  expect_refused([&] { import_genai_folder(linked_folder("wrong-graph", kGenerated / "mm-gemma4", config)); },
                 {"text.onnx", "graph input 'inputs_embeds' is not one ogai feeds", "model.embedding.inputs"});
  config = config_of(kGenerated / "mm-gemma4");
  config["model"]["speech"] = {{"filename", "vision.onnx"}};
  config["model"]["type"] = "phi3v";
  expect_refused([&] { import_genai_folder(linked_folder("phi-speech", kGenerated / "mm-gemma4", config)); },
                 {"model.speech", "no speech session"});
}

}  // namespace
}  // namespace ogai::importer
