#include "chat/template.h"

#include <fmt/format.h>

#include <chrono>

#include "base/error.h"
#include "chat/jinja/ast.h"
#include "chat/jinja/convert.h"
#include "chat/jinja/error.h"
#include "chat/jinja/interpreter.h"
#include "chat/jinja/lexer.h"
#include "chat/jinja/parser.h"

namespace ogai::chat {
namespace {

std::string where(const std::string& origin, const std::string& source, std::uint32_t pos) {
  auto [line, column] = jinja::line_column(source, pos);
  return fmt::format("{}:{}:{}", origin, line, column);
}

}  // namespace

Template::Template(std::shared_ptr<const jinja::Program> program, std::string origin)
    : program_(std::move(program)), origin_(std::move(origin)) {}

const std::string& Template::source() const { return program_->source; }

Template Template::parse(std::string_view source, std::string origin) {
  auto program = std::make_shared<jinja::Program>();
  program->source = source;
  try {
    jinja::parse_program(jinja::tokenize(jinja::preprocess(source)), *program);
  } catch (const jinja::SyntaxError& e) {
    throw Error(ErrorCode::kParse, where(origin, program->source, e.pos), "template syntax error: " + e.message);
  }
  return Template(std::move(program), std::move(origin));
}

std::string Template::render(std::span<const Binding> variables, const RenderOptions& options) const {
  const RenderLimits& l = options.limits;
  jinja::Limits limits{l.max_output_bytes, l.max_memory_bytes, l.max_loop_iterations, l.max_depth};
  std::time_t now = options.now ? *options.now : std::time(nullptr);
  std::string out;
  out.reserve(program_->source.size() + 1024);
  jinja::Renderer renderer(*program_, limits, now, out);
  try {
    jinja::Scope* root = renderer.new_scope(nullptr);
    for (const Binding& b : variables) {
      auto it = program_->symbol_ids.find(std::string(b.name));
      if (it != program_->symbol_ids.end() && b.value) root->set(it->second, jinja::from_json(renderer, *b.value));
    }
    renderer.run(root);
  } catch (const jinja::TemplateFailure& e) {
    throw Error(ErrorCode::kInvalidArgument, where(origin_, program_->source, renderer.position()), e.message);
  } catch (const jinja::RaisedByTemplate& e) {
    throw Error(ErrorCode::kInvalidArgument, where(origin_, program_->source, renderer.position()), e.message);
  } catch (const jinja::HeapExhausted& e) {
    throw Error(ErrorCode::kInvalidArgument, where(origin_, program_->source, renderer.position()),
                fmt::format("rendering needs more than the memory limit of {} bytes", e.limit));
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::kInvalidArgument, where(origin_, program_->source, renderer.position()),
                "rendering ran out of memory");
  } catch (const std::exception& e) {  // a bug in ogai; never let it escape as another type
    throw Error(ErrorCode::kInternal, where(origin_, program_->source, renderer.position()), e.what());
  }
  return out;
}

std::string Template::render(const Json& variables, const RenderOptions& options) const {
  if (!variables.is_object()) fail(ErrorCode::kInvalidArgument, origin_, "template variables must be a JSON object");
  std::vector<Binding> bindings;
  bindings.reserve(variables.size());
  for (const auto& [name, value] : variables.items()) bindings.push_back({name, &value});
  return render(bindings, options);
}

}  // namespace ogai::chat
