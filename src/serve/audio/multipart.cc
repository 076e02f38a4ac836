#include "serve/audio/multipart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "serve/common/api_error.h"

namespace ogai::serve {
namespace {

constexpr std::size_t kMaxBoundary = 70;

[[noreturn]] void refuse(const std::string& why) {
  throw invalid_request("", "the multipart/form-data body: " + why);
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A header's parameters after its value: `; key=value` or `; key="quoted \" value"`; calls
// `on(key, value)` for each (key lower-cased). Returns false on a malformed list.
template <class On>
bool read_parameters(std::string_view s, On on) {
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ';')) ++i;
    if (i == s.size()) break;
    const std::size_t eq = s.find('=', i);
    if (eq == std::string_view::npos) return false;
    const std::string key = lower(trim(s.substr(i, eq - i)));
    std::string value;
    i = eq + 1;
    if (i < s.size() && s[i] == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        value += s[i];
      }
      if (i == s.size()) return false;  // unterminated quote
      ++i;
    } else {
      const std::size_t end = std::min(s.find(';', i), s.size());
      value = std::string(trim(s.substr(i, end - i)));
      i = end;
    }
    on(key, value);
  }
  return true;
}

// The header block of one part ("Name: value" lines, CRLF-separated) into `part`.
void read_headers(std::string_view block, MultipartPart& part, std::size_t index) {
  bool disposition = false;
  while (!block.empty()) {
    const std::size_t eol = block.find("\r\n");
    const std::string_view line = block.substr(0, eol);
    block = eol == std::string_view::npos ? std::string_view() : block.substr(eol + 2);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0)
      refuse(fmt::format("part {} has a header line without a name and ':'", index));
    const std::string name = lower(trim(line.substr(0, colon)));
    const std::string_view value = trim(line.substr(colon + 1));
    if (name == "content-type") {
      part.content_type = lower(trim(value.substr(0, value.find(';'))));
    } else if (name == "content-disposition") {
      const std::size_t semi = std::min(value.find(';'), value.size());
      if (lower(trim(value.substr(0, semi))) != "form-data")
        refuse(fmt::format("part {}: Content-Disposition is not form-data", index));
      disposition = true;
      const bool ok = read_parameters(value.substr(semi), [&](const std::string& k, const std::string& v) {
        if (k == "name") part.name = v;
        else if (k == "filename") part.filename = v;
      });
      if (!ok) refuse(fmt::format("part {}: its Content-Disposition parameters are malformed", index));
    }
  }
  if (!disposition || part.name.empty())
    refuse(fmt::format("part {} has no Content-Disposition: form-data with a name", index));
}

}  // namespace

std::string multipart_boundary(std::string_view content_type) {
  const std::size_t semi = std::min(content_type.find(';'), content_type.size());
  if (lower(trim(content_type.substr(0, semi))) != "multipart/form-data")
    throw invalid_request("", "the request body must be multipart/form-data (with a file), got Content-Type " +
                                  quote_value(content_type.empty() ? std::string_view("(none)") : content_type));
  std::string boundary;
  const bool ok = read_parameters(content_type.substr(semi), [&](const std::string& k, const std::string& v) {
    if (k == "boundary") boundary = v;
  });
  if (!ok || boundary.empty() || boundary.size() > kMaxBoundary)
    throw invalid_request("", "the multipart/form-data Content-Type needs a boundary of 1 to 70 characters");
  return boundary;
}

std::vector<MultipartPart> parse_multipart(std::string_view body, std::string_view boundary,
                                           const MultipartLimits& limits) {
  if (boundary.empty() || boundary.size() > kMaxBoundary) refuse("the boundary must be 1 to 70 characters");
  const std::string first = "--" + std::string(boundary);
  const std::string delimiter = "\r\n" + first;
  std::size_t at = body.starts_with(first) ? 0 : body.find(delimiter);  // after an optional preamble
  if (at == std::string_view::npos) refuse("it holds no boundary delimiter");
  at += at == 0 && body.starts_with(first) ? first.size() : delimiter.size();
  std::vector<MultipartPart> parts;
  while (true) {
    if (body.substr(at, 2) == "--") return parts;  // the closing delimiter (an epilogue may follow)
    if (body.substr(at, 2) != "\r\n") refuse("a boundary delimiter is not followed by CRLF");
    at += 2;
    if (parts.size() == limits.max_parts) refuse(fmt::format("more than {} parts", limits.max_parts));
    const std::size_t headers_end = body.find("\r\n\r\n", at);
    const std::size_t header_size = headers_end == std::string_view::npos ? body.size() - at : headers_end - at;
    if (header_size > limits.max_header_bytes)
      refuse(fmt::format("part {} has more than {} bytes of headers", parts.size(), limits.max_header_bytes));
    if (headers_end == std::string_view::npos) refuse(fmt::format("part {} has no end of its headers", parts.size()));
    MultipartPart part;
    read_headers(body.substr(at, headers_end - at), part, parts.size());
    const std::size_t content = headers_end + 4;
    const std::size_t end = body.find(delimiter, content);
    if (end == std::string_view::npos) refuse(fmt::format("part {} ({}) does not end with a boundary", parts.size(), part.name));
    part.body = body.substr(content, end - content);
    parts.push_back(std::move(part));
    at = end + delimiter.size();
  }
}

}  // namespace ogai::serve
