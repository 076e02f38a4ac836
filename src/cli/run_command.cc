// `ogai run PKG [--input NAME=JSON]... [--max-new-tokens N] [--seed N] [--temperature F]
// [--top-k N] [--top-p F] [--min-p F] [--no-stop-on-eos] [--adapters ROWS] [--json] [--output-dir DIR]`:
// runs a package's workflow through the interpreter (src/workflow) with named input tensors and
// prints what it emitted.
//   NAME: a workflow input (`request.input_ids`) or an application alias (`write_indices`).
//   JSON: a nested array or a scalar, typed by that input's contract; `@FILE.npy` reads NumPy;
//         `@FILE` (another extension) is a media file's bytes for a uint8 [bytes] input.
//   --adapters: LoRA adapters by name per batch row, `;` between rows, `-` for none, `NAME[:SCALE]`
//           comma-separated ("red;-;red:0.5,blue"); fills the package's adapters.selection inputs.
//   --max-media-parts, --max-media-bytes, --max-image-pixels, --max-decoded-bytes, --max-audio-seconds:
//           the media budgets (media/media_limits.h) of the preprocess adapters and of the @FILE inputs.
//   --output-dir: writes every media output as a file there (`audio.wav`, `image.png`, a video's
//           frames `video/frame-0001.png`; per row `audio.row.R.wav`, `video.row.R/...`) and the
//           --json document as `outputs.json`; never replaces an existing file (refused by name,
//           nothing written), and writes nothing when an output cannot be encoded.
//   --json: {"outputs": {"NAME": {"dtype", "shape", "data"}}} on one line (per-row outputs as
//           NAME.row.R); an output never emitted is absent. Otherwise one line per output.
//   A package with a transcription profile (CTC; workflow/transcription.h) also gets its decoded
//   text: "transcriptions": {"PROFILE": [{"text", "ids"}, ...]} (one per batch row) in the JSON,
//   and `PROFILE[R]: "text"` lines otherwise.
// Exit 0 ran, 1 the package or request was refused, 2 usage or unreadable input.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <map>

#include "base/error.h"
#include "base/file.h"
#include "cli/command.h"
#include "cli/output_dir.h"
#include "cli/media_limit_flags.h"
#include "workflow/input_specs.h"
#include "workflow/interpreter.h"
#include "workflow/media_output.h"
#include "workflow/lora_overlay.h"
#include "workflow/tensor_json.h"
#include "workflow/transcription.h"

namespace ogai::cli {
namespace {

struct RunFlags {
  std::string package;
  std::vector<std::string> inputs;
  std::optional<std::int64_t> max_new_tokens, seed, top_k;
  std::optional<double> temperature, top_p, min_p;
  bool no_stop_on_eos = false, json = false;
  std::string output_dir;
  std::optional<std::string> adapters;
  media::MediaLimits media_limits;  // --max-media-parts, --max-image-pixels, ... (media_limit_flags.h)
};

// --max-media-parts: the media files (`NAME=@FILE`, not .npy) one run passes.
void check_media_count(const std::vector<std::string>& inputs, std::size_t limit) {
  std::size_t files = 0;
  for (const std::string& in : inputs) {
    const auto at = in.find("=@");
    if (at != std::string::npos && !in.ends_with(".npy")) ++files;
  }
  if (files > limit)
    fail(ErrorCode::kInvalidArgument, "--input", "{} media files, over the limit of {} (--max-media-parts)", files,
         limit);
}

void print_human(const workflow::RunResult& result, const std::vector<workflow::ProfileTranscripts>& transcripts) {
  for (const auto& [key, tensor] : result.outputs) {
    const auto doc = workflow::tensor_json(tensor);
    std::printf("%s %s%s: %s\n", key.c_str(), doc["dtype"].get<std::string>().c_str(),
                ort::shape_string(tensor.shape()).c_str(), doc["data"].dump().c_str());
  }
  if (result.outputs.empty()) std::fputs("(no outputs were emitted)\n", stderr);
  for (const auto& t : transcripts)
    for (std::size_t r = 0; r < t.rows.size(); ++r)
      std::printf("%s[%zu]: %s\n", t.profile.c_str(), r, nlohmann::json(t.rows[r].text).dump().c_str());
}

// The --json document: the outputs, and the transcripts when the package has a transcription profile.
nlohmann::json run_json(const workflow::RunResult& result, const std::vector<workflow::ProfileTranscripts>& transcripts) {
  nlohmann::json doc = workflow::outputs_json(result);
  if (!transcripts.empty()) doc["transcriptions"] = workflow::transcripts_json(transcripts);
  return doc;
}

// The media outputs as files and the JSON document beside them: everything is encoded before
// the first file is written, and no existing file is replaced (cli/output_dir.h).
void write_output_dir(const workflow::Program& program, const workflow::RunResult& result, const nlohmann::json& doc,
                      const std::string& dir) {
  std::vector<OutputFile> files;
  for (auto& file : workflow::media_files(program.workflow(), result)) files.push_back({file.path, std::move(file.bytes)});
  const std::string json = doc.dump() + "\n";
  files.push_back({"outputs.json", {json.begin(), json.end()}});
  write_output_files(dir, files);
}

int run_run(const RunFlags& f) {
  check_media_count(f.inputs, f.media_limits.max_media_parts);
  workflow::Program program = workflow::load_program(f.package, {}, f.media_limits);
  workflow::RunRequest request;
  workflow::add_input_tensors(program.workflow(), f.inputs, request);
  request.max_new_tokens = f.max_new_tokens;
  request.seed = f.seed;
  request.temperature = f.temperature;
  request.top_k = f.top_k;
  request.top_p = f.top_p;
  request.min_p = f.min_p;
  request.stop_on_eos = !f.no_stop_on_eos;
  if (f.adapters) request.adapters = workflow::parse_lora_rows(*f.adapters, "--adapters");
  const workflow::RunResult result = workflow::run(program, std::move(request));
  const auto transcripts = workflow::transcribe(program.transcriptions, result);
  const nlohmann::json doc = run_json(result, transcripts);
  if (!f.output_dir.empty()) write_output_dir(program, result, doc, f.output_dir);
  if (f.json) std::printf("%s\n", doc.dump().c_str());
  else print_human(result, transcripts);
  return kExitOk;
}

}  // namespace

void add_run_command(CLI::App& app, CommandResult& result) {
  auto flags = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand("run", "run a package's workflow with named input tensors and print its outputs");
  cmd->add_option("PKG", flags->package, "package directory or metadata file")->required();
  cmd->add_option("--input", flags->inputs, "NAME=JSON or NAME=@FILE.npy: a workflow input or application alias");
  cmd->add_option("--max-new-tokens", flags->max_new_tokens, "fills max_iterations / max_output_tokens roles")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", flags->seed, "fills the seed role (default 0)");
  cmd->add_option("--temperature", flags->temperature, "sampling temperature (any sampling flag turns greedy off)");
  cmd->add_option("--top-k", flags->top_k, "sampling top-k (0: off)");
  cmd->add_option("--top-p", flags->top_p, "sampling top-p");
  cmd->add_option("--min-p", flags->min_p, "sampling min-p");
  cmd->add_flag("--no-stop-on-eos", flags->no_stop_on_eos, "generation_eos loops run all max_iterations trips");
  cmd->add_option("--adapters", flags->adapters,
                  "LoRA adapters per batch row: ROW;ROW;... each - or NAME[:SCALE],... (e.g. red;-;red:0.5,blue)");
  add_media_limit_flags(*cmd, flags->media_limits);
  cmd->add_flag("--json", flags->json, "print {\"outputs\": {NAME: {dtype, shape, data}}} on one line");
  cmd->add_option("--output-dir", flags->output_dir, "write media outputs (NAME.wav, NAME.png, NAME/frame-0001.png) and outputs.json into DIR (never replacing a file)");
  cmd->callback([&result, flags] { result.exit_code = run_run(*flags); });
}

}  // namespace ogai::cli
