// The sections of genai_config.json below `model` (internal to the importer; see genai_config.h):
// session and run options, the decoder's input/output names, the sliding window, `search` and
// `engine`, and the multimodal sessions. Each checks its keys against closed tables and throws like genai_config.h says.
#pragma once

#include <string>

#include "importer/genai_config.h"
#include "importer/json_reader.h"

namespace ogai::importer {

void read_session_options(const JsonReader& r, const Json& value, const std::string& path, GenaiConfig& c);
void read_run_options(const JsonReader& r, const Json& value, const std::string& path, GenaiConfig& c);
void read_decoder_inputs(const JsonReader& r, const Json& value, DecoderNames& names);
void read_decoder_outputs(const JsonReader& r, const Json& value, DecoderNames& names);
SlidingWindow read_sliding_window(const JsonReader& r, const Json& value, GenaiConfig& c);
void read_search(const JsonReader& r, const Json& value, GenaiConfig& c);
void read_engine(const JsonReader& r, const Json& value, GenaiConfig& c);
// model.vision / model.speech / model.embedding when present (genai_multimodal.cc).
void read_multimodal(const JsonReader& r, const Json& model, GenaiConfig& c);

}  // namespace ogai::importer
