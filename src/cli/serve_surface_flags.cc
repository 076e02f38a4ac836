#include "cli/serve_surface_flags.h"

#include <cstdlib>
#include <memory>
#include <variant>

#include "base/log.h"
#include "ogai/sampling_fields.h"

namespace ogai::cli {

// An empty key (an unset variable in `--api-key "$KEY"`, or OGAI_API_KEY=) would serve without
// authentication while its user believes otherwise: refused at parse time (exit 2).
constexpr const char* kEmptyKey = "is empty, which would serve without authentication; give a key, or leave it "
                                  "out to serve without one";

// One flag per ogai/sampling_fields.h entry, plus --seed: the values of fields a request leaves
// out (before the package's values and ogai's default, docs/cli.md#sampling-default).
void add_sampling_default_flags(CLI::App& cmd, SamplingOptions& defaults) {
  constexpr const char* kServerDefault =
      " for requests that leave it out (default: the package's generation_config.json, else OpenAI's: temperature "
      "1, filters off)";
  for (const SamplingField& field : kSamplingFields)
    std::visit([&](auto member) {
      using T = typename std::remove_reference_t<decltype(defaults.*member)>::value_type;
      cmd.add_option_function<T>(field.flag(), [&defaults, member](const T& v) { defaults.*member = v; },
                                 std::string(field.help) + kServerDefault);
    }, field.member);
  cmd.add_option_function<std::uint64_t>(
      "--seed", [&defaults](std::uint64_t v) { defaults.seed = v; },
      "seed of requests that set none: each such request then repeats its answer (default: a random seed each)");
}

void add_surface_flags(CLI::App& cmd, serve::SurfaceOptions& s, std::string& log_format) {
  const char* env = std::getenv("OGAI_API_KEY");
  if (env) s.api_keys = {env};
  auto flag_given = std::make_shared<bool>(false);
  cmd.add_option("--api-key", s.api_keys,
                 "require \"Authorization: Bearer KEY\" on every request (repeatable: each key a tenant whose "
                 "stored responses only it can read; default: $OGAI_API_KEY; unset = open)")
      ->each([flag_given](const std::string& key) {
        *flag_given = true;
        if (key.empty()) throw CLI::ValidationError("--api-key", kEmptyKey);
      });
  cmd.parse_complete_callback([flag_given, empty_env = env != nullptr && *env == '\0'] {
    if (empty_env && !*flag_given) throw CLI::ValidationError("OGAI_API_KEY", kEmptyKey);
  });
  cmd.add_flag("--protect-probes", s.protect_probes, "with --api-key: /health, /ready and /metrics need the key too");
  cmd.add_option("--cors-origin", s.cors_origins,
                 "browser origin allowed to call the API (repeatable; \"*\" = any), e.g. http://localhost:3000")
      ->allow_extra_args(false);
  cmd.add_flag("--strict-requests", s.strict_requests, "refuse requests with unknown fields (400) instead of warning");
  cmd.add_option_function<int>(
         "--max-tokens-default", [&s](int n) { s.max_tokens_default = n; },
         "most tokens generated for a request that sets no max_tokens / max_completion_tokens / max_output_tokens")
      ->check(CLI::Range(1, 1 << 30));
  cmd.add_flag_callback("--no-access-log", [&s] { s.access_log = false; }, "do not log a line per request");
  cmd.add_flag_callback("--no-webui", [&s] { s.webui = false; }, "do not serve the chat page at / (404 there)");
  add_sampling_default_flags(cmd, s.sampling_defaults);
  cmd.add_option("--log-format", log_format, "log lines as text or as JSON objects (one a line)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
}

void apply_log_format(const std::string& log_format) {
  set_log_format(log_format == "json" ? LogFormat::kJson : LogFormat::kText);
}

}  // namespace ogai::cli
