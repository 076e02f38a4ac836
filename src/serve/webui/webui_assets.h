// The chat page's files (src/serve/webui/: index.html, app.js, markdown.js, style.css, icon.svg),
// embedded in the binary: the build writes their bytes into a generated source
// (embed_assets.cmake), so `ogai serve` serves the page offline with no file beside it.
// Read-only data with static storage; thread-safe.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace ogai::serve::webui {

struct EmbeddedFile {
  std::string_view name;   // the file's name in src/serve/webui/ ("app.js")
  std::string_view bytes;  // its content (index.html with its asset version filled in)
};

// Every embedded file, index.html first.
std::span<const EmbeddedFile> embedded_files();

// 12 hex digits of the SHA-256 of every file but index.html: index.html loads its assets as
// "/webui/NAME?v=VERSION", so a new build's page never meets an old cached asset.
std::string_view asset_version();

// The most bytes the files may take together (the build checks it too: webui.cmake's BUDGET).
inline constexpr std::size_t kAssetBudgetBytes = 100 * 1024;

}  // namespace ogai::serve::webui
