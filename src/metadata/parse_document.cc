// The top level of a v1 document, `package`, `generation` and `profiles`.
#include "metadata/parse.h"

#include "metadata/parse_internal.h"

namespace ogai::metadata {
namespace detail {
namespace {

PackageFacts read_package(Reader& r, const Node& node, const std::string& path) {
  PackageFacts p;
  Fields f(r, &node, path, {{"slot_ids", "row identity is runtime-owned"}});
  if (const Node* tok = f.get("tokenizer")) {
    Fields t(r, tok, f.at("tokenizer"));
    TokenizerFacts facts;
    facts.algorithm = t.string_or("algorithm", "", true);
    facts.vocab_size = t.integer("vocab_size", 1, true).value_or(0);
    facts.byte_level = t.boolean("byte_level", false);
    r.items(t.get("artifacts"), t.at("artifacts"), [&](std::size_t, const Node& v, const std::string& ap) {
      Fields a(r, &v, ap, {{"sha256", "metadata carries no hashes"}});
      facts.artifacts.push_back(a.string_or("location", "", true));
    });
    r.entries(t.get("special_tokens"), t.at("special_tokens"), [&](const std::string& name, const Node& v, const std::string& sp) {
      Fields s(r, &v, sp);
      facts.special_tokens.emplace_back(name, SpecialToken{s.integer("id", 0, true).value_or(0), s.string_or("content", "", true)});
    });
    p.tokenizer = facts;
  }
  r.items(f.get("constraint_languages"), f.at("constraint_languages"), [&](std::size_t, const Node& v, const std::string& cp) {
    Fields c(r, &v, cp);
    p.constraint_languages.push_back({c.string_or("dialect", "", true), c.string_or("version", "", true),
                                      c.string_or("component", "", true)});
  });
  return p;
}

GenerationDefaults read_defaults(Reader& r, const Node& node, const std::string& path) {
  GenerationDefaults d;
  Fields f(r, &node, path);
  auto flag = [&](std::string_view key) -> std::optional<bool> {
    const Node* n = f.get(key);
    return n ? r.boolean(n, f.at(key)) : std::nullopt;
  };
  d.do_sample = flag("do_sample");
  d.early_stopping = flag("early_stopping");
  d.temperature = f.number("temperature");
  d.top_p = f.number("top_p");
  d.repetition_penalty = f.number("repetition_penalty");
  d.length_penalty = f.number("length_penalty");
  d.diversity_penalty = f.number("diversity_penalty");
  d.top_k = f.integer("top_k", 0);
  d.num_beams = f.integer("num_beams", 1);
  d.num_return_sequences = f.integer("num_return_sequences", 1);
  d.min_length = f.integer("min_length", 0);
  d.max_length = f.integer("max_length", 0);
  d.no_repeat_ngram_size = f.integer("no_repeat_ngram_size", 0);
  return d;
}

Generation read_generation(Reader& r, const Node& node, const std::string& path) {
  Generation g;
  Fields f(r, &node, path);
  if (const Node* d = f.get("defaults")) g.defaults = read_defaults(r, *d, f.at("defaults"));
  r.entries(f.get("overrides"), f.at("overrides"), [&](const std::string& field, const Node& v, const std::string& p) {
    Fields o(r, &v, p);
    GenerationOverride ov;
    ov.input = o.string_or("input", "", true);
    if (const Node* c = o.get("constraint")) {
      Fields cf(r, c, o.at("constraint"));
      ov.minimum = cf.number("minimum");
      ov.maximum = cf.number("maximum");
    }
    g.overrides.emplace_back(field, ov);
  });
  return g;
}

Profile read_profile(Reader& r, const Node& node, const std::string& path) {
  Profile p;
  Fields f(r, &node, path);
  p.kind = f.string_or("kind", "", true);
  p.version = f.string_or("version", "", true);
  p.required = f.one_of("requirement", {"required", "ignorable"}).value_or("required") == "required";
  r.entries(f.get("outputs"), f.at("outputs"), [&](const std::string& role, const Node& v, const std::string& op) {
    if (auto out = r.string(&v, op)) p.outputs.emplace_back(role, *out);
  });
  if (const Node* pooling = f.get("pooling")) {
    Fields pf(r, pooling, f.at("pooling"));
    pf.one_of("kind", {"mean", "max", "cls", "last_token"}, true);
    pf.integer("axis", 0, true);
    pf.boolean("normalize", false);
    p.pooling = r.json(pooling);
  }
  if (const Node* decoding = f.get("decoding")) {
    Fields d(r, decoding, f.at("decoding"));
    Profile::Decoding dec;
    dec.kind = d.string_or("kind", "", true);
    dec.blank_id = d.integer("blank_id", 0);
    dec.collapse_repeats = d.boolean("collapse_repeats", false);
    dec.time_axis = d.integer("time_axis", 0, true).value_or(0);
    dec.class_axis = d.integer("class_axis", 0, true).value_or(0);
    dec.lengths = d.string("lengths");
    dec.vocabulary = d.json("vocabulary");
    p.decoding = dec;
  }
  p.batch_invariance = f.one_of("batch_invariance", {"row_independent", "padding_sensitive"});
  p.generation_affecting = f.boolean("generation_affecting", false);
  return p;
}

void read_pipeline(Reader& r, const Node& node, const std::string& path, Document& doc) {
  Fields f(r, &node, path, {{"models", "the v0 pipeline IR; v1 declares pipeline.workflow"},
                            {"dataflow", "the v0 pipeline IR; v1 declares pipeline.workflow"},
                            {"strategy", "the v0 pipeline IR; v1 declares pipeline.workflow"},
                            {"phases", "the v0 pipeline IR; v1 declares pipeline.workflow"}});
  if (const Node* w = f.need("workflow")) doc.workflow = read_workflow(r, *w, f.at("workflow"));
}

}  // namespace
}  // namespace detail

Document parse_document(const Node& root, Diagnostics& diags) {
  using namespace detail;
  Reader r(diags);
  Document doc;
  if (root.kind != Node::Kind::kMap) {
    r.error("", std::string("the document must be a mapping, got a ") + node_kind_name(root.kind));
    return doc;
  }
  constexpr std::string_view kRemoved = "removed before v1; declare the behaviour in pipeline.workflow";
  Fields f(r, &root, "", {{"strategy", kRemoved}, {"tokens", kRemoved}, {"structured_output", kRemoved},
                          {"speculator_config", "renamed to `speculative`"}, {"kv_cache", kRemoved}});
  if (const Node* v = f.get("schema_version")) doc.schema_version = v->text;
  doc.required_capabilities = f.strings("required_capabilities");
  if (const Node* m = f.get("model")) doc.model = read_model(r, *m, "model");
  if (const Node* p = f.get("pipeline")) read_pipeline(r, *p, "pipeline", doc);
  if (const Node* a = f.get("adapters")) doc.adapters = read_adapters(r, *a, "adapters");
  if (const Node* p = f.get("package")) doc.package = read_package(r, *p, "package");
  if (const Node* g = f.get("generation")) doc.generation = read_generation(r, *g, "generation");
  r.entries(f.get("profiles"), "profiles", [&](const std::string& name, const Node& v, const std::string& p) {
    doc.profiles.emplace_back(name, read_profile(r, v, p));
  });
  if (const Node* s = f.get("speculative")) doc.speculative = read_speculative(r, *s, "speculative");
  doc.quantization = f.json("quantization");
  doc.hardware_requirements = f.json("hardware_requirements");
  doc.preprocessing = f.json("preprocessing");
  return doc;
}

Document parse_document_text(std::string_view text, const std::string& origin, Diagnostics& diags) {
  NodePtr root = origin.ends_with(".json") ? parse_json(text, origin) : parse_yaml(text, origin);
  return parse_document(*root, diags);
}

}  // namespace ogai::metadata
