// A loaded workflow program: a validated package whose `pipeline.workflow` the interpreter can
// execute, with one ONNX Runtime session per ONNX component and the load-time facts the
// interpreter reads on every request (digest §2): the row-wise outputs, the dynamic symbols, and
// the plans that bind every value name to a slot (plan.h).
//
// load_program() refuses, with the document path of the capability or step, everything the
// interpreter does not execute (adapter ABIs no unit implements (adapter.h), artifact-sourced inputs,
// session-scoped state, request_expanded / token_packed layouts), so nothing runs approximately.
// A Program is immutable after load; run() (interpreter.h) may be called from several threads.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "metadata/package.h"
#include "ort/session.h"
#include "workflow/adapter.h"
#include "workflow/plan.h"
#include "workflow/transcription.h"

namespace ogai::workflow {

class LoraCache;

struct Program {
  metadata::Package package;
  std::map<std::string, ort::Session> sessions;  // ONNX components by name
  std::set<std::string> row_wise;                // outputs any emit publishes per row (when / valid_length)
  std::set<std::string> dynamic_symbols;         // symbols on growing/bounded axes of state cells
  // The load-time plans (plan.h), by step (the steps live in `package`, which the program owns;
  // moving a Program keeps them where they are).
  SlotTable slots;
  std::unordered_map<const metadata::InvokeStep*, InvokePlan> invokes;  // every invoke
  std::unordered_map<const metadata::EmitStep*, EmitPlan> emits;
  std::unordered_map<const metadata::LoopStep*, LoopPlan> loops;
  // Adapter components prepared at load (adapter.h), by component name.
  std::map<std::string, std::unique_ptr<const Adapter>> adapters;
  // The package's LoRA adapter cache (lora_cache.h; internally synchronized), shared by every
  // parameter-overlay component; null when the document has no `adapters`.
  std::shared_ptr<LoraCache> lora;
  // The transcription profiles it decodes after a run (transcription.h), in document order.
  std::vector<TranscriptionProfile> transcriptions;
  // Budgets on the media its preprocess adapters decode (include/ogai/media.h).
  media::MediaLimits media_limits;

  const metadata::Workflow& workflow() const { return *package.document.workflow; }
};

// Validates the package (metadata::load_package) and prepares it. Throws ogai::Error
// (kInvalidPackage, kUnsupported) naming the document path.
Program load_program(const std::filesystem::path& package, const ort::SessionOptions& options = {},
                     const media::MediaLimits& media_limits = {});
Program prepare_program(metadata::Package package, const ort::SessionOptions& options = {},
                        const media::MediaLimits& media_limits = {});

// True when the package has a workflow that is more than the single-step shape (a loop, a branch,
// an adapter, or an invoke of a component other than the sole decoder): the native decode loop
// cannot stand in for it and the interpreter runs it.
bool needs_interpreter(const metadata::Package& package);

}  // namespace ogai::workflow
