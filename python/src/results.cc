// ogai.GenerationResult: a GenerationResult as read-only attributes; str(result) is its text.
#include <pybind11/stl.h>

#include "bindings.h"
#include "convert.h"

namespace ogai::python {

namespace {

py::dict timings_dict(const Timings& t) {
  py::dict d;
  d["load_ms"] = t.load_ms;
  d["queue_ms"] = t.queue_ms;
  d["prefill_ms"] = t.prefill_ms;
  d["decode_ms"] = t.decode_ms;
  d["ttft_ms"] = t.ttft_ms;
  d["decode_tok_s"] = t.decode_tok_s;
  d["runtime_ms"] = t.runtime_ms;
  d["onnxruntime_ms"] = t.onnxruntime_ms;
  return d;
}

py::dict logprob_dict(std::int32_t id, float logprob) {
  py::dict d;
  d["id"] = id;
  d["logprob"] = logprob;
  return d;
}

// {"id", "logprob", "top": [{"id", "logprob"}, ...]}, as `ogai generate --json --logprobs N`.
py::dict position_dict(const TokenLogprobs& p) {
  py::dict d = logprob_dict(p.id, p.logprob);
  py::list top;
  for (const TokenLogprob& t : p.top) top.append(logprob_dict(t.id, t.logprob));
  d["top"] = top;
  return d;
}

py::list logprobs_list(const GenerationResult& r) {
  py::list out;
  for (const TokenLogprobs& p : r.logprobs) out.append(position_dict(p));
  return out;
}

py::list prompt_logprobs_list(const GenerationResult& r) {
  py::list out;
  for (const auto& p : r.prompt_logprobs) out.append(p ? py::object(position_dict(*p)) : py::object(py::none()));
  return out;
}

std::string repr(const GenerationResult& r) {
  std::string text = py::repr(to_str(r.text)).cast<std::string>();
  return "GenerationResult(text=" + text + ", finish_reason='" + finish_reason_name(r.finish_reason) + "', " +
         std::to_string(r.ids.size()) + " tokens)";
}

}  // namespace

void bind_results(py::module_& m) {
  py::class_<GenerationResult>(m, "GenerationResult", "What one generation produced; str(result) is the text.")
      .def_property_readonly("text", [](const GenerationResult& r) { return to_str(r.text); },
                             "the generated text (a stop string excluded)")
      .def_readonly("token_ids", &GenerationResult::ids, "generated ids (a matched stop token id and EOS included)")
      .def_readonly("prompt_token_ids", &GenerationResult::prompt_ids, "the prompt's ids as fed")
      .def_property_readonly("finish_reason", [](const GenerationResult& r) { return finish_reason_name(r.finish_reason); },
                             "'stop', 'length', 'eos' or 'cancelled'")
      .def_property_readonly("timings", [](const GenerationResult& r) { return timings_dict(r.timings); },
                             "milliseconds per phase and decode tokens per second, as a dict")
      .def_readonly("cached_prompt_tokens", &GenerationResult::cached_prompt_tokens,
                    "prompt tokens whose KV was reused instead of prefilled")
      .def_readonly("draft_tokens", &GenerationResult::draft_tokens, "speculative decoding: tokens proposed")
      .def_readonly("accepted_draft_tokens", &GenerationResult::accepted_draft_tokens, "... and accepted")
      .def_property_readonly("logprobs", &logprobs_list,
                             "with logprobs=N: per generated token {'id', 'logprob', 'top': [{'id', 'logprob'}, ...]}")
      .def_property_readonly("prompt_logprobs", &prompt_logprobs_list,
                             "with prompt_logprobs=True: per prompt token the same (None for the first)")
      .def("__str__", [](const GenerationResult& r) { return to_str(r.text); })
      .def("__repr__", &repr);
}

}  // namespace ogai::python
