#include "workflow/image_adapter.h"

#include <cstring>

#include "base/error.h"
#include "media/image/program.h"
#include "media/media_limits.h"

namespace ogai::workflow {
namespace {

class ImagePreprocessAdapter final : public Adapter {
 public:
  ImagePreprocessAdapter(media::ImageProgram program, const media::MediaLimits& limits)
      : program_(std::move(program)), limits_(media::image_limits(limits)) {}

  RoleOutputs run(const AdapterCall& call) const override {
    auto it = call.inputs.find("encoded");
    if (it == call.inputs.end() || !it->second)
      fail(ErrorCode::kInvalidArgument, call.what, "image-preprocess@1 needs its `encoded` input (the image file)");
    const ort::Tensor& encoded = *it->second;
    auto name = call.input_values.find("encoded");
    const std::string what = (name != call.input_values.end() ? name->second : std::string("encoded")) + " (" +
                             call.what + ")";
    if (encoded.dtype() != DataType::kUint8 || encoded.shape().size() != 1)
      fail(ErrorCode::kInvalidArgument, what, "an image input is uint8 [bytes] (the encoded file), got {}{}",
           dtype_name(encoded.dtype()), ort::shape_string(encoded.shape()));
    auto bytes = encoded.span<std::uint8_t>();
    auto produced = program_.run(bytes, what, limits_);
    RoleOutputs out;
    for (const auto& [role, value] : call.output_values) {
      const media::ProgramTensor* match = nullptr;
      for (const auto& t : produced)
        if (t.name == value) match = &t;
      for (const auto& t : produced)
        if (!match && t.name.size() > role.size() && t.name.ends_with("." + role)) match = &t;
      if (!match)
        fail(ErrorCode::kInvalidPackage, call.what,
             "the preprocessing.image program has no output named '{}' (or ending in '.{}') for port '{}'", value,
             role, role);
      ort::Tensor tensor = ort::Tensor::allocate(match->dtype, match->shape);
      std::memcpy(tensor.raw_data(), match->data.data(), match->data.size());
      out.emplace(role, std::move(tensor));
    }
    return out;
  }

 private:
  media::ImageProgram program_;
  media::ImageLimits limits_;
};

}  // namespace

std::unique_ptr<const Adapter> make_image_preprocess_adapter(const AdapterSite& site) {
  const auto& pre = site.package.document.preprocessing;
  if (!pre.is_object() || !pre.contains("image"))
    fail(ErrorCode::kInvalidPackage, site.path, "an image-preprocess@1 adapter needs the document's preprocessing.image");
  if (!site.component.ports.inputs.empty() && !metadata::find_named(site.component.ports.inputs, "encoded"))
    fail(ErrorCode::kInvalidPackage, site.path + ".ports.inputs", "image-preprocess@1 reads one input port `encoded`");
  return std::make_unique<ImagePreprocessAdapter>(media::ImageProgram::parse(pre["image"], "preprocessing.image"),
                                                  site.media_limits);
}

}  // namespace ogai::workflow
