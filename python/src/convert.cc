#include "convert.h"
#include "media_convert.h"

#include "chat_convert.h"

#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <variant>

#include <pybind11/stl.h>

#include "ogai/sampling_fields.h"

namespace ogai::python {

namespace {

std::string type_name(py::handle value) { return Py_TYPE(value.ptr())->tp_name; }

[[noreturn]] void wrong_type(const char* function, const std::string& name, const char* expected, py::handle value) {
  throw py::type_error(std::string(function) + "(): " + name + " must be " + expected + ", not " + type_name(value));
}

// `value` as T, or a TypeError naming the argument. bool is refused where a number is expected.
template <typename T>
T as(const char* function, const std::string& name, const char* expected, py::handle value) {
  if constexpr (!std::is_same_v<T, bool>)
    if (PyBool_Check(value.ptr())) wrong_type(function, name, expected, value);
  if constexpr (std::is_same_v<T, bool>)
    if (!PyBool_Check(value.ptr())) wrong_type(function, name, expected, value);
  if constexpr (std::is_same_v<T, std::string>)
    if (!PyUnicode_Check(value.ptr())) wrong_type(function, name, expected, value);
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    wrong_type(function, name, expected, value);
  }
}

// An int that must fit `T`: a TypeError for a non-int, ogai's InvalidArgumentError out of range.
template <typename T>
T as_int(const char* function, const std::string& name, py::handle value) {
  if (PyBool_Check(value.ptr()) || !PyLong_Check(value.ptr())) wrong_type(function, name, "an int", value);
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw Error(ErrorCode::kInvalidArgument, name, py::str(value).cast<std::string>() + " is out of range");
  }
}

std::vector<std::string> strings(const char* function, const std::string& name, py::handle value) {
  if (PyUnicode_Check(value.ptr())) return {value.cast<std::string>()};
  if (!py::isinstance<py::sequence>(value)) wrong_type(function, name, "a str or a list of str", value);
  std::vector<std::string> out;
  for (py::handle item : value) out.push_back(as<std::string>(function, name + " item", "a str", item));
  return out;
}

// The text member `key` of a dict argument, or ogai's InvalidArgumentError naming it.
std::string text_member(py::dict d, const char* key, const std::string& where) {
  if (!d.contains(key) || !PyUnicode_Check(d[key].ptr()))
    throw Error(ErrorCode::kInvalidArgument, where + "." + key, "expected a string");
  return d[key].cast<std::string>();
}

// OpenAI's response_format dict (the same shapes `ogai serve` takes): {"type": "text"},
// {"type": "json_object"}, {"type": "json_schema", "json_schema": {"schema": {...} or JSON text,
// "strict": bool}}, {"type": "regex", "regex": RE}, {"type": "grammar", "grammar": GBNF}.
std::optional<ResponseFormat> response_format_from(const char* function, py::handle value) {
  if (!py::isinstance<py::dict>(value)) wrong_type(function, "response_format", "a dict", value);
  py::dict d = py::reinterpret_borrow<py::dict>(value);
  const std::string type = text_member(d, "type", "response_format");
  ResponseFormat format;
  if (type == "text") return std::nullopt;
  if (type == "json_object") {
    format.kind = ResponseFormat::Kind::kJsonObject;
  } else if (type == "json_schema") {
    if (!d.contains("json_schema") || !py::isinstance<py::dict>(d["json_schema"]))
      throw Error(ErrorCode::kInvalidArgument, "response_format.json_schema", "expected an object with a \"schema\"");
    py::dict spec = d["json_schema"];
    if (!spec.contains("schema"))
      throw Error(ErrorCode::kInvalidArgument, "response_format.json_schema.schema", "is missing");
    py::object schema = spec["schema"];
    format.kind = ResponseFormat::Kind::kJsonSchema;
    format.text = PyUnicode_Check(schema.ptr()) ? schema.cast<std::string>()
                                                : py::module_::import("json").attr("dumps")(schema).cast<std::string>();
    if (spec.contains("strict")) format.strict = as<bool>(function, "response_format.json_schema.strict", "a bool", spec["strict"]);
  } else if (type == "regex" || type == "grammar") {
    format.kind = type == "regex" ? ResponseFormat::Kind::kRegex : ResponseFormat::Kind::kGrammar;
    format.text = text_member(d, type.c_str(), "response_format");
  } else {
    throw Error(ErrorCode::kInvalidArgument, "response_format.type",
                "'" + type + "' is not one of text, json_object, json_schema, regex, grammar");
  }
  return format;
}

SpeculativeOptions::Drafter drafter_from(const std::string& name) {
  using Drafter = SpeculativeOptions::Drafter;
  if (name == "none") return Drafter::kNone;
  if (name == "ngram") return Drafter::kNgram;
  if (name == "assistant") return Drafter::kAssistant;
  throw Error(ErrorCode::kInvalidArgument, "speculative", "'" + name + "' is not one of none, ngram, assistant");
}

using Setter = std::function<void(GenerateArgs&, const char* function, const std::string& name, py::handle value)>;

// The setter of one ogai/sampling_fields.h entry: a number, or an int for int members.
Setter sampling_setter(const SamplingField& field) {
  if (auto* m = std::get_if<SamplingField::IntMember>(&field.member))
    return [m = *m](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
      a.options.sampling.*m = as_int<int>(f, n, v);
    };
  return [m = std::get<SamplingField::FloatMember>(field.member)](GenerateArgs& a, const char* f, const std::string& n,
                                                                  py::handle v) {
    a.options.sampling.*m = as<float>(f, n, "a number", v);
  };
}

std::map<std::string, Setter> make_setters() {
  std::map<std::string, Setter> table = {
      {"max_new_tokens", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.max_new_tokens = as_int<int>(f, n, v);
       }},
      {"do_sample", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.sampling.do_sample = as<bool>(f, n, "a bool", v);
       }},
      {"seed", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.sampling.seed = as_int<std::uint64_t>(f, n, v);
       }},
      {"stop", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.stop = strings(f, n, v);
       }},
      {"stop_strings", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.stop = strings(f, n, v);  // transformers' name for `stop`
       }},
      {"stop_token_ids", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         if (!py::isinstance<py::sequence>(v) || PyUnicode_Check(v.ptr())) wrong_type(f, n, "a list of int", v);
         for (py::handle id : v) a.options.stop_token_ids.push_back(as_int<std::int32_t>(f, n + " item", id));
       }},
      {"ignore_eos", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.ignore_eos = as<bool>(f, n, "a bool", v);
       }},
      {"truncate_prompt", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.truncate_prompt = as<bool>(f, n, "a bool", v);
       }},
      {"add_special_tokens", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.add_special_tokens = as<bool>(f, n, "a bool", v);
         a.add_special_tokens_set = true;
       }},
      {"response_format", [](GenerateArgs& a, const char* f, const std::string&, py::handle v) {
         a.options.response_format = response_format_from(f, v);
       }},
      {"logprobs", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.logprobs = as_int<int>(f, n, v);
       }},
      {"prompt_logprobs", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.prompt_logprobs = as<bool>(f, n, "a bool", v);
       }},
      {"speculative", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.speculative.drafter = drafter_from(as<std::string>(f, n, "a str", v));
       }},
      {"draft_tokens", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.options.speculative.max_draft_tokens = as_int<int>(f, n, v);
       }},
      {"stream", [](GenerateArgs& a, const char* f, const std::string& n, py::handle v) {
         a.stream = as<bool>(f, n, "a bool", v);
       }},
      {"images", [](GenerateArgs& a, const char* f, const std::string&, py::handle v) {
         auto m = media_list_from(f, "images", MediaInput::Kind::kImage, v);
         a.options.media.insert(a.options.media.begin(), m.begin(), m.end());  // images before audio
       }},
      {"audio", [](GenerateArgs& a, const char* f, const std::string&, py::handle v) {
         auto m = media_list_from(f, "audio", MediaInput::Kind::kAudio, v);
         a.options.media.insert(a.options.media.end(), m.begin(), m.end());
       }},
  };
  for (const SamplingField& field : kSamplingFields) table.emplace(std::string(field.name), sampling_setter(field));
  return table;
}

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> table = make_setters();
  return table;
}

}  // namespace

py::str to_str(std::string_view text) {
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

Prompt prompt_from(const char* function, py::handle prompt) {
  if (PyUnicode_Check(prompt.ptr())) return prompt.cast<std::string>();
  if (!py::isinstance<py::sequence>(prompt)) wrong_type(function, "prompt", "a str or a list of token ids", prompt);
  std::vector<std::int32_t> ids;
  for (py::handle id : prompt) ids.push_back(as_int<std::int32_t>(function, "prompt item", id));
  return ids;
}

GenerateArgs generate_args(const char* function, const py::kwargs& kwargs) {
  GenerateArgs args;
  args.options.sampling.default_do_sample = true;  // docs/cli.md#sampling-default, as the CLI and server
  if (kwargs.contains("stop") && kwargs.contains("stop_strings") && !kwargs["stop"].is_none() &&
      !kwargs["stop_strings"].is_none())
    throw py::type_error(std::string(function) + "(): give stop or stop_strings (the same option), not both");
  for (auto [key, value] : kwargs) {
    const std::string name = key.cast<std::string>();
    auto it = setters().find(name);
    if (it == setters().end())
      throw py::type_error(std::string(function) + "() got an unexpected keyword argument '" + name + "'");
    if (!value.is_none()) it->second(args, function, name, value);
  }
  return args;
}

std::vector<ChatMessage> messages_from(py::handle messages) { return chat_messages_from(messages); }

}  // namespace ogai::python
