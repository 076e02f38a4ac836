// V-IN (workflow inputs) and V-OUT (workflow outputs). The V-IN rule about reading an optional
// input only where its presence is known lives in the SSA walk (rules_flow.cc).
#include <set>

#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {
namespace {

void check_input(RuleContext& ctx, const std::string& name, const WorkflowInput& in, std::set<std::string>& flags) {
  Diagnostics& d = ctx.diags;
  std::string path = wf_path("inputs." + name);
  bool request = in.source.kind == InputSource::Kind::kRequest;
  bool runtime_role = in.role.kind == InputRole::Kind::kRuntime;
  if (request && !runtime_role)
    d.report("V-IN", path + ".role", "a request-sourced input needs a runtime role ({{kind: runtime, version, role}}) "
             "so the runtime knows what to fill; got an opaque role");
  if (!in.required && !in.default_value && !in.present_as)
    d.report("V-IN", path, "optional input (required: false) needs a `default` or a `present_as` flag");
  if (in.source.kind == InputSource::Kind::kApplication && in.source.name.empty())
    d.report("V-IN", path + ".source.name", "an application source needs a non-empty name");
  if (in.source.kind == InputSource::Kind::kArtifact && in.source.path.empty())
    d.report("V-IN", path + ".source.path", "an artifact source needs a non-empty package-relative path");
  if (!in.present_as) return;
  bool caller_supplied = request || in.source.kind == InputSource::Kind::kApplication;
  if (in.required || in.default_value || !caller_supplied)
    d.report("V-IN", path + ".present_as", "present_as is allowed only on optional (required: false), default-less "
             "request or application inputs");
  if (request && runtime_role && in.role.role != "media" && in.role.role != "constraint" && in.role.role != "session_id")
    d.report("V-IN", path + ".present_as", "on request inputs only the media, constraint and session_id roles may "
             "use present_as; this input has role '{}'", in.role.role);
  if (!flags.insert(*in.present_as).second || ctx.input(*in.present_as) || ctx.cell(*in.present_as))
    d.report("V-IN", path + ".present_as", "present_as name '{}' is not unique", *in.present_as);
}

void check_output(RuleContext& ctx, const std::string& name, const WorkflowOutput& out) {
  Diagnostics& d = ctx.diags;
  std::string path = wf_path("outputs." + name);
  if (out.media) {
    const MediaOutput& m = *out.media;
    if (out.role != "audio")
      d.report("V-OUT", path + ".media", "`media` describes audio delivery; the output role is '{}', expected audio", out.role);
    if (!m.sample_rate_hz || *m.sample_rate_hz <= 0)
      d.report("V-OUT", path + ".media.sample_rate_hz", "an audio media output needs a positive sample_rate_hz");
    if (!m.channels || *m.channels <= 0)
      d.report("V-OUT", path + ".media.channels", "an audio media output needs a positive channel count");
    if (m.container == "wav") {
      bool bytes = canonical_dtype(out.contract.dtype) == DataType::kUint8 && out.stage == "post_adapter";
      bool samples = is_float_contract(out.contract) && out.stage == "pre_adapter";
      if (!bytes && !samples)
        d.report("V-OUT", path + ".media.container", "a WAV output is either uint8 bytes at post_adapter or float "
                 "samples at pre_adapter; got {} at {}", out.contract.dtype, out.stage);
    }
  }
  if (out.role == "image" && !out.value_range)
    d.report("V-OUT", path + ".value_range", "an image output needs a value_range (zero_to_one, negative_one_to_one "
             "or zero_to_255)");
  if (out.role != "image" && out.value_range)
    d.report("V-OUT", path + ".value_range", "only image outputs carry a value_range; this output's role is '{}'", out.role);
}

}  // namespace

void check_io(RuleContext& ctx) {
  std::set<std::string> flags;
  for (const auto& [name, in] : ctx.wf.inputs) check_input(ctx, name, in, flags);
  for (const auto& [name, out] : ctx.wf.outputs) check_output(ctx, name, out);
}

}  // namespace ogai::metadata::detail
