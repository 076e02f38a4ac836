#include "workflow/parameter_overlay.h"

#include "base/error.h"

namespace ogai::workflow {
namespace {

std::string string_parameter(const metadata::Component& c, const char* key, const std::string& path) {
  const auto* v = c.contract ? metadata::find_named(c.contract->parameters, key) : nullptr;
  if (!v || !v->is_string() || v->get<std::string>().empty())
    fail(ErrorCode::kInvalidPackage, path + ".contract.parameters." + key, "a parameter overlay needs a non-empty string");
  return v->get<std::string>();
}

}  // namespace

bool is_parameter_overlay(const std::string& abi, const std::string& version) {
  return abi == "onnx-genai.parameter-overlay" && version == "1";
}

OverlayPlan plan_parameter_overlay(const metadata::Component& c, std::shared_ptr<LoraCache> cache, const std::string& path) {
  const std::string action = string_parameter(c, "action", path);
  if (action != "apply")
    fail(ErrorCode::kInvalidPackage, path + ".contract.parameters.action", "parameter-overlay@1 knows `apply`, got '{}'", action);
  if (!cache) fail(ErrorCode::kInvalidPackage, path, "a parameter-overlay adapter needs the document's `adapters` section");
  const LoraContract& contract = cache->contract();
  if (!contract.portable_fallback)
    fail(ErrorCode::kUnsupported, "adapters.portable_fallback",
         "is false: the package asks for the execution provider's '{}' capability; ogai applies adapters on the host only",
         contract.capability);
  OverlayPlan plan{std::move(cache), string_parameter(c, "component", path), string_parameter(c, "parameter", path), 0};
  for (const auto& t : contract.targets)
    if (t.component == plan.component && t.initializer == plan.parameter) {
      plan.out_features = t.output_features;
      return plan;
    }
  fail(ErrorCode::kInvalidPackage, path + ".contract.parameters",
       "overlays '{}.{}', which adapters.target_manifest.targets does not list", plan.component, plan.parameter);
}

ort::Tensor run_parameter_overlay(const OverlayPlan& plan, const ort::Tensor& input, const ValueLookup& values,
                                  const std::string& what) {
  const LoraSelection selection = lora_rows(plan.cache->contract(), values, what);
  const PreparedRows rows = plan.cache->prepare(selection.rows, selection.active, what);
  return apply_overlay(rows, plan.component, plan.parameter, input, plan.out_features, what);
}

namespace {

class ParameterOverlay final : public Adapter {
 public:
  explicit ParameterOverlay(OverlayPlan plan) : plan_(std::move(plan)) {}

  RoleOutputs run(const AdapterCall& call) const override {
    auto it = call.inputs.find("input");
    if (it == call.inputs.end() || !it->second)
      fail(ErrorCode::kInvalidArgument, call.what, "the parameter overlay's `input` role is not bound");
    if (!call.value) fail(ErrorCode::kInternal, call.what, "the parameter overlay was called without the run's values");
    RoleOutputs out;
    out.emplace("output", run_parameter_overlay(plan_, *it->second, call.value, call.what));
    return out;
  }

 private:
  OverlayPlan plan_;
};

}  // namespace

std::unique_ptr<const Adapter> make_parameter_overlay_adapter(const AdapterSite& site) {
  return std::make_unique<ParameterOverlay>(plan_parameter_overlay(site.component, site.lora, site.path));
}

}  // namespace ogai::workflow
