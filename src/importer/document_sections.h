// The closing sections every imported document shares (internal to the importer): `package:`
// (the tokenizer.json artifact, its algorithm, vocabulary size and special tokens) and
// `generation: defaults:` (the genai_config search values the folder set). Both the decoder
// writer (document_writer.h) and the encoder-decoder writer (encoder_decoder_writer.h) end with
// them. Pure; deterministic; writes nothing when the plan has nothing for a section.
#pragma once

#include "importer/document_writer.h"
#include "importer/document_yaml.h"

namespace ogai::importer {

// `package: tokenizer: ...`; nothing when the plan has no tokenizer (a token-id package).
void write_package_section(YamlLines& y, const DocumentPlan& plan);

// `generation: defaults: ...` from the config's search values that are set; nothing when none is.
void write_generation_section(YamlLines& y, const SearchDefaults& search);

}  // namespace ogai::importer
