#include "workflow/program.h"

#include <set>

#include <fmt/format.h>

#include "base/error.h"
#include "metadata/encoder_decoder.h"
#include "metadata/multimodal_abi.h"
#include "workflow/adapter.h"
#include "workflow/lora_cache.h"
#include "workflow/parameter_overlay.h"

namespace ogai::workflow {
namespace {

using metadata::Step;

// An undeclared component is refused; an adapter component is prepared once (adapter.h), and an
// ABI ogai does not execute is refused naming the first step that invokes it.
void check_component(Program& p, const std::string& name, const std::string& path) {
  const auto* comp = metadata::find_named(p.workflow().components, name);
  if (!comp) fail(ErrorCode::kInvalidPackage, path, "invokes undeclared component '{}'", name);
  if (comp->implementation.kind != metadata::Implementation::Kind::kAdapter || p.adapters.count(name)) return;
  const AdapterSite site{p.package, *comp, name, "pipeline.workflow.components." + name, p.lora, p.media_limits};
  p.adapters.emplace(name, prepare_adapter(site, path));
}

void check_inputs(const metadata::Workflow& wf) {
  for (const auto& [name, input] : wf.inputs) {
    const std::string path = "pipeline.workflow.inputs." + name;
    if (input.source.kind == metadata::InputSource::Kind::kArtifact)
      fail(ErrorCode::kUnsupported, path + ".source",
           "artifact-sourced inputs are not turned into tensors "
           "(the reference refuses them too: 'requires artifact binding')");
    const auto kind = input.contract.batch_layout.kind;
    if (kind == metadata::BatchLayout::Kind::kRequestExpanded || kind == metadata::BatchLayout::Kind::kTokenPacked)
      fail(ErrorCode::kUnsupported, path + ".contract.batch_layout", "{} layouts are not executed by the interpreter",
           metadata::batch_layout_name(kind));
  }
}

void check_state(const metadata::Workflow& wf) {
  for (const auto& [name, cell] : wf.state)
    if (cell.scope == metadata::StateScope::kSession)
      fail(ErrorCode::kUnsupported, "pipeline.workflow.state." + name + ".scope",
           "session-scoped state needs session ids, which ogai's workflow requests do not carry yet");
}

// `adapters` that no parameter overlay applies would be selected and never used: refused.
void check_adapters_applied(const Program& p) {
  if (!p.lora) return;
  for (const auto& [name, comp] : p.workflow().components)
    if (comp.implementation.kind == metadata::Implementation::Kind::kAdapter &&
        is_parameter_overlay(comp.implementation.abi, comp.implementation.version))
      return;
  fail(ErrorCode::kUnsupported, "adapters",
       "no onnx-genai.parameter-overlay@1 component applies the declared adapters; ogai applies LoRA adapters "
       "only through one (adapters.target_manifest graph_inputs are not fed)");
}

}  // namespace

Program prepare_program(metadata::Package package, const ort::SessionOptions& options,
                        const media::MediaLimits& media_limits) {
  const std::string origin = package.files.metadata_file.string();
  if (!package.document.workflow)
    fail(ErrorCode::kUnsupported, origin, "the package has no pipeline.workflow to interpret");
  Program p{std::move(package), {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, media_limits};
  if (p.package.document.adapters)
    p.lora = std::make_shared<LoraCache>(lora_contract(*p.package.document.adapters, p.package.files.root));
  const auto& wf = p.workflow();
  check_inputs(wf);
  check_state(wf);
  for_each_step(wf.steps, [&](const Step& step) {
    if (const auto* inv = std::get_if<metadata::InvokeStep>(&step.body)) check_component(p, inv->component, step.path);
    if (const auto* e = std::get_if<metadata::EmitStep>(&step.body))
      if (e->when || e->valid_length) p.row_wise.insert(e->output);
  });
  for (const auto& [name, cell] : wf.state) {
    if (cell.recurrence.kind == metadata::Recurrence::Kind::kInvariant || !cell.contract.shape) continue;
    const auto axis = static_cast<std::size_t>(cell.recurrence.axis);
    if (axis < cell.contract.shape->size() && !(*cell.contract.shape)[axis].is_fixed())
      p.dynamic_symbols.insert((*cell.contract.shape)[axis].symbol);
  }
  check_adapters_applied(p);
  for (const auto& [name, comp] : wf.components) {
    if (comp.implementation.kind != metadata::Implementation::Kind::kOnnx) continue;
    auto it = p.package.files.component_artifacts.find(name);
    if (it == p.package.files.component_artifacts.end())
      fail(ErrorCode::kInvalidPackage, "pipeline.workflow.components." + name, "has no resolved ONNX artifact");
    p.sessions.emplace(name, ort::Session::open(it->second, options));
  }
  build_plans(p);
  p.transcriptions = transcription_profiles(p.package);
  return p;
}

Program load_program(const std::filesystem::path& package, const ort::SessionOptions& options,
                     const media::MediaLimits& media_limits) {
  return prepare_program(metadata::load_package(package), options, media_limits);
}

bool needs_interpreter(const metadata::Package& package) {
  if (!package.document.workflow) return false;
  const auto& wf = *package.document.workflow;
  // An encoder run once, then the decoder (metadata/encoder_decoder.h): the native engine's.
  if (package.decoder && metadata::derive_encoder_decoder(package.document, package.decoder->component, {})) return false;
  std::set<std::string> native;  // the components the native decode loop runs
  if (package.decoder) native.insert(package.decoder->component);
  if (package.document.speculative) native.insert(package.document.speculative->proposer);
  bool flow = false, front_refused = false;
  try {  // a multimodal front (encoders, embedding) in front of the decoder: generate/media_encoders.h
    if (auto mm = metadata::derive_multimodal_abi(package)) native.insert(mm->components.begin(), mm->components.end());
  } catch (const Error&) {
    front_refused = true;  // make_package_config derives it again and names what it cannot run
  }
  bool other = false;
  for_each_step(wf.steps, [&](const Step& step) {
    if (std::holds_alternative<metadata::LoopStep>(step.body) ||
        std::holds_alternative<metadata::BranchStep>(step.body))
      flow = true;
    if (const auto* inv = std::get_if<metadata::InvokeStep>(&step.body))
      if (!native.count(inv->component)) other = true;
  });
  if (front_refused && !flow) return false;
  return flow || other;
}

}  // namespace ogai::workflow
