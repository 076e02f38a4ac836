#include "serve/router/request_model.h"

#include <nlohmann/json.hpp>

#include <cctype>

#include "serve/audio/multipart.h"

namespace ogai::serve::router {
namespace {

// A SAX reader that stops at the first "model" key of the top-level object.
class ModelKey : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::optional<std::string> model;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool string(string_t& s) override {
    if (model_next_) {
      model = s;
      return false;  // found: stop reading
    }
    return value();
  }
  bool start_object(std::size_t) override { return open(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    model_next_ = depth_ == 1 && k == "model";
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool value() { return !model_next_; }  // "model" with another type: stop, no model
  bool open() {
    if (model_next_) return false;
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return depth_ > 0;  // the top-level object ended without a model
  }
  int depth_ = 0;
  bool model_next_ = false;
};

}  // namespace

std::optional<std::string> json_model_field(std::string_view body) {
  ModelKey reader;
  nlohmann::json::sax_parse(body.begin(), body.end(), &reader, nlohmann::json::input_format_t::json, false);
  return reader.model;
}

std::optional<std::string> multipart_model_field(std::string_view content_type, std::string_view body) {
  try {
    for (const MultipartPart& part : parse_multipart(body, multipart_boundary(content_type)))
      if (part.name == "model" && part.filename.empty()) return std::string(part.body);
  } catch (const std::exception&) {
    // malformed: the unit's parser answers it
  }
  return std::nullopt;
}

std::optional<std::string> requested_model(const http::Request& request) {
  const std::string_view type = request.header("content-type");
  std::string media(type.substr(0, type.find(';')));
  for (char& c : media) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (media.find("multipart/form-data") != std::string::npos) return multipart_model_field(type, request.body);
  return json_model_field(request.body);
}

}  // namespace ogai::serve::router
