// The native onnx-genai.image-preprocess@1 adapter: runs the document's `preprocessing.image`
// program (media/image/program.h) on one encoded image. Role `encoded`: uint8 [bytes] (the file
// as sent: PNG, JPEG, WebP, GIF, BMP). Each output role receives the program output whose name
// is the value the step stores it as (the reference's rule: `pixel_values: image.pixel_values`
// takes the output named image.pixel_values), else the output whose name ends in `.<role>`.
// The program is parsed and checked at load (make_image_preprocess_adapter); errors about the
// image name the input value (e.g. request.image) and the step. Immutable; run() thread-safe.
#pragma once

#include <memory>

#include "workflow/adapter.h"

namespace ogai::workflow {

std::unique_ptr<const Adapter> make_image_preprocess_adapter(const AdapterSite& site);

}  // namespace ogai::workflow
