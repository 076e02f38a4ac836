// The flags of `ogai serve` for its surface to clients (serve::SurfaceOptions, docs/serve.md):
//   --api-key KEY (default: the OGAI_API_KEY environment variable; empty = no key needed),
//   --protect-probes (/health, /ready, /metrics need the key too; default: they stay open),
//   --cors-origin ORIGIN (repeatable; "*" = any), --strict-requests, --max-tokens-default N,
//   --no-access-log, --no-webui (no chat page at /), --log-format text|json.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "serve/server.h"

namespace ogai::cli {

void add_surface_flags(CLI::App& cmd, serve::SurfaceOptions& surface, std::string& log_format);
// "text" or "json" -> the process's log format (base/log.h).
void apply_log_format(const std::string& log_format);

}  // namespace ogai::cli
