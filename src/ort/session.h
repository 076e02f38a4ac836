// ONNX Runtime sessions: the only place ogai creates and runs them.
//
// One process-wide Ort::Env (created on first use, never destroyed before the last session).
// A Session is thread-safe for concurrent run() calls (ORT's guarantee); creating one is not cheap.
// Every ORT exception is converted to ogai::Error here, naming the model and the call.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <optional>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "ort/tensor.h"

namespace ogai::ort {

// Session settings. Defaults: CPU, ORT's own thread counts, full graph optimization.
struct SessionOptions {
  std::string execution_provider = "cpu";  // "cpu" or "cuda"
  bool allow_cpu_fallback = false;  // if the EP is unavailable: false = error, true = warn + CPU
  int device_id = 0;                // CUDA device
  int intra_op_threads = 0;         // 0 = ORT default
  int inter_op_threads = 0;         // 0 = ORT default
  bool enable_profiling = false;
  bool device_id_set = false;       // device_id was asked for (a package's device_id yields to it)
  // From a package's own settings (generate/session_settings.h); unset = ogai's defaults.
  std::optional<int> graph_optimization_level;  // ORT's GraphOptimizationLevel value; default all
  std::optional<bool> cpu_mem_arena, mem_pattern;
  std::vector<std::pair<std::string, std::string>> config_entries;  // AddConfigEntry, in order
  std::vector<std::pair<std::string, std::string>> cuda_options;    // CUDA provider options (V2 keys)
};

// A graph input or output as ORT reports it. Dynamic dims are -1 with their symbol (if any).
struct PortInfo {
  std::string name;
  DataType dtype = DataType::kUndefined;  // undefined for non-tensor values
  Shape shape;                            // -1 for dynamic dims
  std::vector<std::string> symbols;       // same length as shape; "" when fixed or anonymous
};

// Version string of the ONNX Runtime library in use, e.g. "1.30.0".
std::string runtime_version();

// Execution providers the loaded ORT library offers, e.g. {"CPUExecutionProvider"}.
std::vector<std::string> available_providers();

class Session {
 public:
  // Opens a model file: binary `.onnx` (external data resolved beside it) or `.onnx.textproto`
  // (converted in memory; external data resolved beside the textproto).
  static Session open(const std::filesystem::path& model, const SessionOptions& options = {});
  // Creates a session from binary ModelProto bytes; external data is resolved in
  // `external_data_dir`; `origin` names the model in errors.
  static Session from_bytes(std::string_view bytes, const SessionOptions& options,
                            const std::filesystem::path& external_data_dir, std::string origin);

  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& origin() const;
  const std::vector<PortInfo>& inputs() const;
  const std::vector<PortInfo>& outputs() const;
  const PortInfo* find_input(std::string_view name) const;
  const PortInfo* find_output(std::string_view name) const;
  // Where the graph runs: the host for the CPU provider (or a CUDA request that fell back to
  // CPU), the CUDA device otherwise. Device-resident state is allocated there (memory.h).
  Location device() const;

  // Runs the graph. `input_names[i]` is fed `inputs[i]`; returns the outputs named in
  // `output_names`, in that order, as new ORT-allocated CPU tensors.
  std::vector<Tensor> run(std::span<const std::string> input_names,
                          std::span<const Tensor* const> inputs,
                          std::span<const std::string> output_names) const;

  // Same, with caller-chosen output destinations: outputs[i] receives output_names[i]. A
  // non-empty outputs[i] is a pre-allocated destination ORT writes into (its shape must be the
  // output's shape; e.g. a present KV buffer that is also the past input); an empty one receives
  // a new ORT-allocated tensor. No copies are made. Returns the seconds spent inside ORT's Run.
  double run_into(std::span<const std::string> input_names, std::span<const Tensor* const> inputs,
                std::span<const std::string> output_names, std::span<Tensor> outputs) const;

  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ogai::ort
