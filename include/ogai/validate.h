// ogai::validate(): check a package without loading it for generation, and list every problem.
//
// The same checks as `ogai validate PATH` (docs/cli.md): the inference_metadata document rules,
// the package files, ONNX admission of every graph (weights are not read) and what Model::load
// builds besides (the tokenizer, the chat template). A package it calls valid also loads.
//
// Thread safety: a free function without shared state; call it from any thread.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ogai/export.h"

namespace ogai {

struct ValidationProblem {
  std::string rule;     // a stable rule id: V-* (document), PKG (files), R1..R8 (ONNX), LOAD, IMPORT, ...
  std::string path;     // the document path or file the problem concerns
  std::string message;  // what is wrong, quoting the value, and what was expected
  std::string text() const { return rule + " " + path + ": " + message; }  // `RULE path: message`
};

struct ValidationResult {
  std::vector<ValidationProblem> problems;  // in the order the checks found them
  bool valid() const { return problems.empty(); }
};

// Validates the package directory (or metadata file) `package`. A genai_config.json folder the
// importer refuses is one IMPORT problem. Throws ogai::Error when nothing can be checked: kNotFound
// (no metadata file at the path, naming it), kParse (its text is unreadable).
OGAI_API ValidationResult validate(const std::filesystem::path& package);

}  // namespace ogai
