// The multimodal parts of an imported document (internal to the importer; document_writer.h
// writes the rest): `preprocessing.image` / `preprocessing.audio`, the media request inputs, the
// components before the decoder and their invokes. The shape, catalogue document 03's:
//  - request.image / request.audio: uint8 [image_bytes] / [audio_bytes], role media, required (as catalogue 03
//    and the standard's vlm fixture declare media; v1's optional form needs a presence flag and a
//    branch whose cases all produce the features), read by the adapter component image_preprocess / audio_preprocess
//    (onnx-genai.image-preprocess@1 / audio-preprocess@1) that runs the program; without a
//    processor config, one request input per vision graph input (role media, the graph's
//    contract) instead;
//  - components `vision` / `speech` (the encoders; contracts copied from the graphs, no batch
//    layout: their axes count patches, crops or frames) and `embedding` (input_ids and the
//    features -> inputs_embeds, batch layout on ids and embeddings);
//  - steps: preprocess, encode, embed, in that order, before the decoder's invoke; values
//    `image.<port>` / `audio.<port>`, `vision.<output>`, `speech.<output>`,
//    `embedding.inputs_embeds` (the decoder's inputs_embeds binds the last).
// Deterministic text; pure.
#pragma once

#include "importer/document_yaml.h"
#include "importer/multimodal_ports.h"

namespace ogai::importer {

void write_preprocessing(YamlLines& y, const MultimodalPlan& plan);           // top level (indent 0)
void write_manifest_abis(YamlLines& y, const MultimodalPlan& plan);           // under manifest (indent 3)
void write_media_inputs(YamlLines& y, const MultimodalPlan& plan);            // under inputs (indent 3)
void write_media_components(YamlLines& y, const MultimodalPlan& plan);        // under components (indent 3)
void write_media_steps(YamlLines& y, const MultimodalPlan& plan);             // under steps (indent 2)

}  // namespace ogai::importer
