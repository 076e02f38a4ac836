// Helpers shared by the image and audio processor translators (internal to the importer;
// processor_import.h is the contract): the closed attribute list of one onnxruntime-extensions
// operation, and the program outputs bound to the tensors a graph takes.
// Pure functions; errors are ogai::Error(kUnsupported / kParse) naming the processor file and
// the JSON path.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "importer/json_reader.h"
#include "importer/processor_import.h"

namespace ogai::importer {

// The operation's `attrs` object, every key in `known` (else refused naming it and the known
// ones); {} when the operation has none.
Json operation_attrs(const JsonReader& r, const Json& op, const std::string& path,
                     std::initializer_list<std::string_view> known);

// One entry of an onnxruntime-extensions operation list: `{"operation": {...}}` or the operation
// itself, at `path` (e.g. `processor.transforms[3]`). The operation's keys must be within name,
// type, domain, attrs, and `type` is required; paths below it are `path + ".operation"`.
struct ExtensionOperation {
  const Json& op;
  std::string path;  // path + ".operation"
  std::string type;
};
ExtensionOperation extension_operation(const JsonReader& r, const Json& entry, const std::string& path);

// An audio processor file's `feature_extraction.sequence` (the top level and `feature_extraction`
// closed to those keys; the list present and non-empty, else refused).
const Json& feature_sequence(const JsonReader& r, const Json& root);

// A field the processor makes and the program value carrying it: {content, source}.
using MadeField = std::pair<std::string, nlohmann::ordered_json>;

// One output binding per target, in target order: {name, content, dtype, source}. A target whose
// field the processor does not make is refused naming the field and the fields it makes; `fields`
// receives every made field's name.
nlohmann::ordered_json bind_outputs(const JsonReader& r, const std::vector<MadeField>& made,
                                    const std::vector<ProgramTarget>& targets, std::vector<std::string>& fields);

}  // namespace ogai::importer
