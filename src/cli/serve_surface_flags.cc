#include "cli/serve_surface_flags.h"

#include <cstdlib>

#include "base/log.h"

namespace ogai::cli {

void add_surface_flags(CLI::App& cmd, serve::SurfaceOptions& s, std::string& log_format) {
  if (const char* key = std::getenv("OGAI_API_KEY")) s.api_key = key;
  cmd.add_option("--api-key", s.api_key,
                 "require \"Authorization: Bearer KEY\" on every request (default: $OGAI_API_KEY; unset = open)");
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
  cmd.add_option("--log-format", log_format, "log lines as text or as JSON objects (one a line)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
}

void apply_log_format(const std::string& log_format) {
  set_log_format(log_format == "json" ? LogFormat::kJson : LogFormat::kText);
}

}  // namespace ogai::cli
