// Python values of images and audio -> the C++ API's MediaInput / ContentPart (include/ogai/media.h).
//   generate(..., images=[...], audio=[...]): each item bytes-like (the encoded file: PNG, JPEG,
//   WAV, FLAC, ...) or a path (str or os.PathLike) read whole, at most 256 MiB and only a regular
//   file. Images go to GenerationOptions::media before audio; the package's prompt expansion takes
//   each kind in its own order (the prompt's image placeholders take the images in order, its audio
//   placeholders the clips).
//   chat content parts: a message's "content" may be a list of {"type": "text", "text": str},
//   {"type": "image", "image": bytes | path} and {"type": "audio", "audio": bytes | path}
//   (Hugging Face's processor-chat shape), in order.
// Conversion only: decoding and limits are the generate stage's. A wrong type raises TypeError
// naming the keyword or element, a malformed content part ogai.InvalidArgumentError; an
// unreadable path names the path.
#pragma once

#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "ogai/ogai.h"

namespace ogai::python {

namespace py = pybind11;

// `value`: a list of bytes-like objects or paths, for keyword `name` of `function`.
std::vector<MediaInput> media_list_from(const char* function, const char* name, MediaInput::Kind kind, py::handle value);

// A message's content list -> its parts; `where` is "messages[i].content".
std::vector<ContentPart> content_parts_from(py::handle content, const std::string& where);

}  // namespace ogai::python
