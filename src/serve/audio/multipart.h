// multipart/form-data (RFC 7578 over RFC 2046's multipart syntax) parsed from a whole request
// body: the boundary from the Content-Type header, then each part's headers (Content-Disposition
// with its name and filename, Content-Type) and its bytes. Bounded: at most MultipartLimits::
// max_parts parts and max_header_bytes of headers per part; the boundary is 1..70 characters
// (RFC 2046), so finding each delimiter is linear in the body. Lines end in CRLF; a body that
// does not end with the closing delimiter, a part without a name, or a malformed header is a
// 400 (ApiError, param "" or the part's name). Parts are views into `body` (no copy): the body
// must outlive them. Pure functions (the fuzz target's entry point); thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ogai::serve {

struct MultipartLimits {
  std::size_t max_parts = 64;
  std::size_t max_header_bytes = 8192;  // one part's header block
};

struct MultipartPart {
  std::string name;          // Content-Disposition name="..."
  std::string filename;      // filename="..." (empty when absent)
  std::string content_type;  // the part's Content-Type (empty when absent)
  std::string_view body;
};

// The boundary parameter of a multipart/form-data Content-Type; 400 when the type is another one
// or the boundary is missing or malformed.
std::string multipart_boundary(std::string_view content_type);

std::vector<MultipartPart> parse_multipart(std::string_view body, std::string_view boundary,
                                           const MultipartLimits& limits = {});

}  // namespace ogai::serve
