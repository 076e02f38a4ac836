#include "workflow/parameter_overlay_adapter.h"

#include "base/error.h"
#include "workflow/lora_overlay.h"

namespace ogai::workflow {
namespace {

std::string string_parameter(const metadata::Component& c, const char* key, const std::string& path) {
  const auto* v = c.contract ? metadata::find_named(c.contract->parameters, key) : nullptr;
  if (!v || !v->is_string() || v->get<std::string>().empty())
    fail(ErrorCode::kInvalidPackage, path + ".contract.parameters." + key, "a parameter overlay needs a non-empty string");
  return v->get<std::string>();
}

class ParameterOverlay final : public Adapter {
 public:
  ParameterOverlay(std::shared_ptr<LoraCache> cache, std::string component, std::string parameter, std::int64_t out)
      : cache_(std::move(cache)), component_(std::move(component)), parameter_(std::move(parameter)), out_features_(out) {}

  RoleOutputs run(const AdapterCall& call) const override {
    auto it = call.inputs.find("input");
    if (it == call.inputs.end() || !it->second)
      fail(ErrorCode::kInvalidArgument, call.what, "the parameter overlay's `input` role is not bound");
    const LoraSelection selection = lora_rows(cache_->contract(), call.value, call.what);
    const PreparedRows rows = cache_->prepare(selection.rows, selection.active, call.what);
    RoleOutputs out;
    out.emplace("output", apply_overlay(rows, component_, parameter_, *it->second, out_features_, call.what));
    return out;
  }

 private:
  std::shared_ptr<LoraCache> cache_;
  std::string component_, parameter_;
  std::int64_t out_features_;
};

}  // namespace

std::unique_ptr<const Adapter> make_parameter_overlay_adapter(const AdapterSite& site) {
  const auto& c = site.component;
  const std::string action = string_parameter(c, "action", site.path);
  if (action != "apply")
    fail(ErrorCode::kInvalidPackage, site.path + ".contract.parameters.action", "parameter-overlay@1 knows `apply`, got '{}'", action);
  if (!site.lora)
    fail(ErrorCode::kInvalidPackage, site.path, "a parameter-overlay adapter needs the document's `adapters` section");
  const LoraContract& contract = site.lora->contract();
  if (!contract.portable_fallback)
    fail(ErrorCode::kUnsupported, "adapters.portable_fallback",
         "is false: the package asks for the execution provider's '{}' capability; ogai applies adapters on the host only",
         contract.capability);
  const std::string component = string_parameter(c, "component", site.path);
  const std::string parameter = string_parameter(c, "parameter", site.path);
  for (const auto& t : contract.targets)
    if (t.component == component && t.initializer == parameter)
      return std::make_unique<ParameterOverlay>(site.lora, component, parameter, t.output_features);
  fail(ErrorCode::kInvalidPackage, site.path + ".contract.parameters",
       "overlays '{}.{}', which adapters.target_manifest.targets does not list", component, parameter);
}

}  // namespace ogai::workflow
