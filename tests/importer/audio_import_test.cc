// Gemma-4's audio import (importer/audio_processor_import.cc): ORT GenAI's
// audio_feature_extraction.json (AudioDecoder + Gemma4LogMel) becomes the preprocessing.audio
// program docs/media.md gives for Hugging Face's Gemma4AudioFeatureExtractor, with the attributes
// mapped (frame and hop in samples, n_fft, mel bins and range, floor, pre-emphasis); the speech
// session of the computing stand-in (tools/genai/multimodal.py mm-gemma4-audio) is written beside
// the vision one and validates. The numbers the program makes are compared with transformers.js
// by tests/e2e/gemma4_audio_import_hf.cjs and run end to end by tests/e2e/gemma4_audio_import_run_test.py.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "multimodal_support.h"

namespace ogai::importer {
namespace {

const std::vector<ProgramTarget> kSpeechTargets = {{"audio_embeds", "audio.audio_embeds", DataType::kFloat32, 3},
                                                   {"attention_mask", "audio.input_features_mask", DataType::kBool, 2},
                                                   {"audio_sizes", "audio.audio_sizes", DataType::kInt64, 1}};

json shared_extraction() { return json::parse(read_file(kShared / "gemma4" / "audio_feature_extraction.json")); }

json& log_mel_attrs(json& extraction) { return extraction["feature_extraction"]["sequence"][1]["operation"]["attrs"]; }

json program_of(const json& extraction, const std::vector<ProgramTarget>& targets = kSpeechTargets,
                std::vector<std::string>* notes = nullptr) {
  ProcessorProgram p = parse_audio_processor(extraction.dump(), "dir/audio_feature_extraction.json", targets);
  if (notes) *notes = p.notes;
  return json::parse(p.program.dump());
}

// The shared file as the program docs/media.md gives for Hugging Face's extractor, op for op.
TEST(Gemma4AudioImport, SharedConfigIsHuggingFacesProgram) {
  ProcessorProgram p = import_audio_processor(kShared / "gemma4" / "audio_feature_extraction.json", kSpeechTargets);
  const json program = json::parse(p.program.dump());
  const json expected = json::parse(R"({"transforms": [
    {"op": "decode"},
    {"op": "downmix", "channels": 1},
    {"op": "resample", "sample_rate": 16000},
    {"op": "trim", "target_length": 480000},
    {"op": "pad", "multiple_of": 128, "pad_value": 0.0},
    {"op": "log_mel", "num_mel_bins": 128, "n_fft": 512, "frame_length": 320, "frame_extent": 321, "hop_length": 160,
     "window": "hann", "center": true, "pad_mode": "semicausal", "drop_last_frame": false, "preemphasis": 0.0,
     "power": 1.0, "mel_scale": "htk", "mel_norm": "none", "f_min": 0.0, "f_max": 8000.0, "log": "ln",
     "log_floor": 0.001, "log_floor_mode": "add", "frame_validity": "extent_end"},
    {"op": "transpose", "outputs": ["audio.transform_features"]},
    {"op": "emit_validity_mask", "inputs": ["audio.transform_features"], "outputs": ["audio.transform_mask"]},
    {"op": "emit_token_count", "inputs": ["audio.transform_features"], "outputs": ["audio.transform_tokens"],
     "max_tokens": 750, "convolutions": [{"kernel": 3, "stride": 2, "padding": 1}, {"kernel": 3, "stride": 2, "padding": 1}]}
  ], "outputs": [
    {"name": "audio.audio_embeds", "content": "audio_features", "dtype": "float32", "source": "audio.transform_features",
     "pad_value": 0.0},
    {"name": "audio.input_features_mask", "content": "validity_mask", "dtype": "bool", "source": "audio.transform_mask"},
    {"name": "audio.audio_sizes", "content": "token_count", "dtype": "int64", "source": "audio.transform_tokens"}
  ]})");
  EXPECT_EQ(program, expected) << program.dump(1);
  EXPECT_EQ(p.fields, (std::vector<std::string>{"audio_embeds", "attention_mask", "audio_sizes"}));
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("Gemma4AudioFeatureExtractor"), std::string::npos) << p.notes[0];
}

// Each attribute reaches the field it sets.
TEST(Gemma4AudioImport, AttributesMapToTheLogMel) {
  json e = shared_extraction();
  json& a = log_mel_attrs(e);
  a["fft_overdrive"] = 1;
  a["preemphasis"] = 0.97;
  a["feature_size"] = 64;
  a["min_frequency"] = 125.0;
  a["max_frequency"] = 7600.0;
  a["mel_floor"] = 1e-5;
  json log_mel = program_of(e)["transforms"][5];
  EXPECT_EQ(log_mel["n_fft"], 1024);  // 512 doubled
  EXPECT_EQ(log_mel["frame_length"], 320);
  EXPECT_DOUBLE_EQ(log_mel["preemphasis"].get<double>(), 0.97);
  EXPECT_EQ(log_mel["num_mel_bins"], 64);
  EXPECT_DOUBLE_EQ(log_mel["f_min"].get<double>(), 125.0);
  EXPECT_DOUBLE_EQ(log_mel["f_max"].get<double>(), 7600.0);
  EXPECT_DOUBLE_EQ(log_mel["log_floor"].get<double>(), 1e-5);

  e = shared_extraction();
  log_mel_attrs(e)["sampling_rate"] = 8000;
  log_mel_attrs(e)["max_frequency"] = 4000.0;
  log_mel_attrs(e)["frame_length_ms"] = 25.0;
  log_mel_attrs(e)["hop_length_ms"] = 12.5;
  e["feature_extraction"]["sequence"][0]["operation"]["attrs"] = {{"target_sample_rate", 8000}, {"max_samples", 80000}};
  const json program = program_of(e);
  log_mel = program["transforms"][5];
  EXPECT_EQ(program["transforms"][2]["sample_rate"], 8000);
  EXPECT_EQ(program["transforms"][3]["target_length"], 80000);  // the decoder's limit, below Hugging Face's
  EXPECT_EQ(log_mel["frame_length"], 200);                      // round(8000 * 25 / 1000)
  EXPECT_EQ(log_mel["frame_extent"], 201);
  EXPECT_EQ(log_mel["hop_length"], 100);
  EXPECT_EQ(log_mel["n_fft"], 256);
}

// The graph's forms the program makes: rank-2 features, int64 mask, int32 sizes; a speech graph
// that takes only the features gets only them.
TEST(Gemma4AudioImport, TargetsPickTheOutputs) {
  const json program = program_of(shared_extraction(), {{"audio_embeds", "audio.x", DataType::kFloat16, 2},
                                                        {"attention_mask", "audio.m", DataType::kInt64, 2},
                                                        {"audio_sizes", "audio.n", DataType::kInt32, 1}});
  EXPECT_EQ(program["outputs"][0]["dtype"], "float16");
  EXPECT_EQ(program["outputs"][1]["dtype"], "int64");
  EXPECT_EQ(program["outputs"][2]["dtype"], "int32");
  const json only = program_of(shared_extraction(), {{"audio_embeds", "audio.audio_embeds", DataType::kFloat32, 3}});
  ASSERT_EQ(only["outputs"].size(), 1u);
  EXPECT_EQ(only["outputs"][0]["content"], "audio_features");
}

void expect_extraction_refused(const json& e, const std::vector<std::string>& fragments,
                               const std::vector<ProgramTarget>& targets = kSpeechTargets) {
  expect_refused([&] { program_of(e, targets); }, fragments);
}

TEST(Gemma4AudioImport, UnexpressibleSettingsAreRefusedByName) {
  const std::string mel = "feature_extraction.sequence[1].operation";
  json e = shared_extraction();
  log_mel_attrs(e)["per_bin_mean"] = json::array({0.5, 0.5});
  expect_extraction_refused(e, {"audio_feature_extraction.json", mel + ".attrs.per_bin_mean", "per_bin_normalization"});
  e = shared_extraction();
  log_mel_attrs(e)["preemphasis"] = 0.97;
  log_mel_attrs(e)["preemphasis_htk_flavor"] = 0;
  expect_extraction_refused(e, {mel + ".attrs.preemphasis_htk_flavor", "HTK flavour"});
  e = shared_extraction();
  log_mel_attrs(e)["window"] = "hamming";
  expect_extraction_refused(e, {mel + ".attrs.window", "not an attribute ogai translates"});
  e = shared_extraction();
  log_mel_attrs(e)["max_frequency"] = 9000.0;
  expect_extraction_refused(e, {mel + ".attrs.max_frequency", "9000", "sampling_rate / 2"});
  e = shared_extraction();
  log_mel_attrs(e)["frame_length_ms"] = 0.01;
  expect_extraction_refused(e, {mel + ".attrs.frame_length_ms", "2 to 65536 samples"});
  e = shared_extraction();
  log_mel_attrs(e)["mel_floor"] = 0.0;
  expect_extraction_refused(e, {mel + ".attrs.mel_floor", "positive"});
  e = shared_extraction();
  e["feature_extraction"]["sequence"][0]["operation"]["attrs"] = {{"target_sample_rate", 8000}};
  expect_extraction_refused(e, {"feature_extraction.sequence[0].operation.attrs.target_sample_rate", "8000", "16000"});
  e = shared_extraction();
  e["feature_extraction"]["sequence"][0]["operation"]["attrs"] = {{"stereo_to_mono", 0}};
  expect_extraction_refused(e, {"feature_extraction.sequence[0].operation.attrs.stereo_to_mono", "mono"});
  e = shared_extraction();
  std::swap(e["feature_extraction"]["sequence"][0], e["feature_extraction"]["sequence"][1]);
  expect_extraction_refused(e, {"feature_extraction.sequence[0].operation.type", "before AudioDecoder"});
  e = shared_extraction();
  e["feature_extraction"]["sequence"].erase(1);
  expect_extraction_refused(e, {"feature_extraction.sequence", "no feature operation", "'audio_embeds'"});
  e = shared_extraction();
  e["feature_extraction"]["sequence"][1]["operation"]["type"] = "PhiLogMel";
  expect_extraction_refused(e, {mel + ".type", "'PhiLogMel'", "AudioDecoder, Gemma4LogMel"});
}

TEST(Gemma4AudioImport, GraphInputsTheProgramCannotFeedAreRefused) {
  expect_extraction_refused(shared_extraction(), {"the graph takes 'audio_projection_mode'", "audio_embeds, attention_mask, audio_sizes"},
                            {{"audio_projection_mode", "audio.audio_projection_mode", DataType::kInt64, 1}});
  expect_extraction_refused(shared_extraction(), {"'audio_sizes'", "float32 of rank 1", "int64 or int32 [1]"},
                            {{"audio_sizes", "audio.audio_sizes", DataType::kFloat32, 1}});
  expect_extraction_refused(shared_extraction(), {"'audio_embeds'", "rank 4", "float [1, frames, feature_size]"},
                            {{"audio_embeds", "audio.audio_embeds", DataType::kFloat32, 4}});
}

// The stand-in: vision and speech beside one embedding, every audio port wired, valid.
TEST(Gemma4AudioImport, StandInWritesTheSpeechComponent) {
  std::string text;
  const json doc = imported(kGenerated / "mm-gemma4-audio", &text);
  const json& audio = doc["preprocessing"]["audio"];
  EXPECT_EQ(ops(audio), (std::vector<std::string>{"decode", "downmix", "resample", "trim", "pad", "log_mel", "transpose",
                                                  "emit_validity_mask", "emit_token_count"}));
  EXPECT_EQ(audio["outputs"][0]["contract"]["shape"], json({"batch_size", "num_frames", 128}));
  EXPECT_EQ(audio["outputs"][1]["contract"]["dtype"], "bool");
  const json& wf = workflow(doc);
  EXPECT_EQ(wf["manifest"]["adapter_abis"]["onnx-genai.audio-preprocess"], "1");
  EXPECT_EQ(wf["manifest"]["adapter_abis"]["onnx-genai.image-preprocess"], "1");
  EXPECT_EQ(wf["inputs"]["request.audio"]["contract"]["dtype"], "uint8");
  EXPECT_EQ(wf["inputs"]["request.audio"]["role"]["role"], "media");
  // Each medium has its own size: one symbol would tie the clip's byte count to the image's.
  EXPECT_EQ(wf["inputs"]["request.audio"]["contract"]["shape"], json({"audio_bytes"}));
  EXPECT_EQ(wf["inputs"]["request.image"]["contract"]["shape"], json({"image_bytes"}));
  const json& c = wf["components"];
  EXPECT_EQ(c["audio_preprocess"]["implementation"]["abi"], "onnx-genai.audio-preprocess");
  EXPECT_EQ(c["audio_preprocess"]["ports"]["outputs"]["input_features_mask"]["dtype"], "bool");
  EXPECT_EQ(c["speech"]["implementation"]["artifact"], "speech.onnx");
  EXPECT_EQ(c["speech"]["ports"]["inputs"]["audio_sizes"]["dtype"], "int64");
  EXPECT_EQ(c["speech"]["ports"]["outputs"]["audio_features"]["shape"], json({"num_audio_tokens", 32}));
  EXPECT_EQ(c["embedding"]["ports"]["inputs"]["audio_features"]["shape"], json({"num_audio_tokens", 32}));
  EXPECT_EQ(step_components(doc), (std::vector<std::string>{"image_preprocess", "audio_preprocess", "vision", "speech",
                                                            "embedding", "decoder", "emit"}));
  const json& steps = wf["steps"];
  EXPECT_EQ(steps[1]["inputs"]["encoded"], "request.audio");
  EXPECT_EQ(steps[1]["outputs"]["audio_sizes"], "audio.audio_sizes");
  EXPECT_EQ(steps[3]["inputs"]["audio_embeds"], "audio.audio_embeds");
  EXPECT_EQ(steps[3]["inputs"]["input_features_mask"], "audio.input_features_mask");
  EXPECT_EQ(steps[4]["inputs"]["audio_features"], "speech.audio_features");
  EXPECT_NE(text.find("# multimodal: audio_feature_extraction.json feature_extraction.sequence[1].operation Gemma4LogMel"),
            std::string::npos) << text;
}

// Around the processor: a missing file, an embedding input by another name, features without a
// speech session.
TEST(Gemma4AudioImport, SpeechSessionRefusals) {
  const fs::path source = kGenerated / "mm-gemma4-audio";
  expect_refused([&] {
    import_genai_folder(linked_folder("no-audio-config", source, config_of(source), {"audio_feature_extraction.json"}));
  }, {"audio_feature_extraction.json", "model.speech.config_filename", "not found"}, ErrorCode::kNotFound);
  json config = config_of(source);
  config["model"]["embedding"]["inputs"]["audio_features"] = "sound";
  expect_refused([&] { import_genai_folder(linked_folder("audio-name", source, config)); },
                 {"embedding.onnx", "graph input 'audio_features' is not one ogai feeds"});
  config = config_of(source);
  config["model"].erase("speech");
  expect_refused([&] { import_genai_folder(linked_folder("no-speech", source, config)); },
                 {"model.embedding", "'audio_features'", "no model.speech session"});
  config = config_of(source);
  config["model"]["speech"]["inputs"]["attention_mask"] = "frames_mask";
  expect_refused([&] { import_genai_folder(linked_folder("mask-name", source, config)); },
                 {"the graph takes 'input_features_mask'", "audio_embeds, attention_mask, audio_sizes"});
}

}  // namespace
}  // namespace ogai::importer
