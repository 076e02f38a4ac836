// The chat page's routes: GET / (index.html) and GET /webui/NAME (its scripts, stylesheet and icon),
// answered from the embedded files (webui_assets.h) with
//   - their Content-Type (text/html, text/javascript, text/css, image/svg+xml; charset=utf-8 for text),
//   - a strict Content-Security-Policy: scripts, styles and images only from this server, no inline
//     script or style, fetch() only to this server, no frames, no forms, no <base>,
//   - X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer,
//   - cache headers: the page itself "no-cache" (revalidated on every load, so a new server version
//     shows at once); its assets, loaded by version (?v=), cacheable for a year and immutable.
// The page asks for the API key itself, so these paths pass without it (auth.h); the API calls it
// makes need it as any client's do. `ogai serve --no-webui` turns the routes off (404 as any path).
// Pure functions over static data; thread-safe.
#pragma once

#include <string_view>

#include "serve/http/message.h"

namespace ogai::serve::webui {

inline constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// "/", "/index.html", or "/webui/" and a name: the paths the page owns.
bool is_page_path(std::string_view path);

// The Content-Type of an embedded file by its extension ("application/octet-stream" if unknown).
std::string_view content_type_of(std::string_view name);

// The answer to `request` on a page path: 200 with the file (no body for HEAD: the transport
// drops it), 404 for a name that is not embedded, 405 (Allow: GET, HEAD) for any other method.
http::Response page_response(const http::Request& request);

}  // namespace ogai::serve::webui
