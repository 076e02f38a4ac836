// POST /v1/images/generations's body (OpenAI's shape): {model, prompt, n?, size?,
// response_format? b64_json, output_format? png, seed?, inputs?, ...}.
//   prompt   a string (tokenized by the package) or, for a package without a tokenizer, an array
//            of token ids (ogai's extension, as /v1/completions takes them);
//   size     "WIDTHxHEIGHT" (or "auto": the package's own) — only where the package declares
//            width and height roles (Model::generate_images refuses it otherwise, naming `size`);
//   response_format url: 400 (ogai keeps no image store); output_format jpeg / webp: 400;
//   quality, style, moderation: 400 naming them (v1 has no such roles); background
//   transparent: 400 (the images are RGB);
//   seed     (ogai's extension) the first image's seed, image i gets seed + i;
//   steps    (ogai's extension, 1..10000) the denoising loop's trip count: fills the workflow
//            input with the max_iterations role; a package without one refuses it naming `steps`;
//   inputs   (ogai's extension) application tensors the package requires, NAME -> JSON nested
//            array or scalar typed by the input's contract (e.g. a diffusion's noise).
// Every error is an ApiError 400 naming the field. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ogai/media_generation.h"
#include "serve/common/json_limits.h"

namespace ogai::serve {

struct ImageHttpRequest {
  std::string model;
  ImageRequest images;
  std::vector<std::string> unknown_fields;
};

ImageHttpRequest parse_image_request(std::string_view body, const JsonLimits& limits);

}  // namespace ogai::serve
