// tokenizer_batch: runs ogai's tokenizer over a batch of jobs for the differential tests
// (tests/tokenizer/differential.cjs), so one process serves thousands of comparisons.
//   tokenizer_batch JOBS.json OUT.json
// JOBS: {"jobs": [{"tokenizer": PATH | "json": DOCUMENT, "texts": [...], "id_lists": [[...]]}]}
// OUT:  [{"error": null | MESSAGE, "encode": [[ids]], "encode_plain": [[ids]], "decode": [...],
//         "decode_skip": [...], "stream": [...], "stream_skip": [...], "stream_chunks_utf8": bool}]
// "encode" adds special tokens, "encode_plain" does not; decode/stream run on id_lists.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "ogai/error.h"
#include "tokenizer/streaming_decoder.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

using nlohmann::json;
using ogai::tokenizer::StreamingDecoder;
using ogai::tokenizer::Tokenizer;

namespace {

// Streams ids one at a time; records whether every chunk was valid UTF-8.
std::string stream(const Tokenizer& tok, const std::vector<std::int32_t>& ids, bool skip, bool* chunks_ok) {
  StreamingDecoder dec(tok, skip);
  std::string all;
  for (std::int32_t id : ids) {
    std::string chunk = dec.step(id);
    if (ogai::tokenizer::find_invalid_utf8(chunk)) *chunks_ok = false;
    all += chunk;
  }
  return all + dec.flush();
}

json run_job(const json& job) {
  json out;
  try {
    Tokenizer tok = job.contains("json") ? Tokenizer::from_json(job["json"].get<std::string>())
                                         : Tokenizer::load(job["tokenizer"].get<std::string>());
    out["encode"] = json::array();
    out["encode_plain"] = json::array();
    for (const auto& t : job.value("texts", json::array())) {
      std::string text = t.get<std::string>();
      out["encode"].push_back(tok.encode(text, true));
      out["encode_plain"].push_back(tok.encode(text, false));
    }
    bool chunks_ok = true;
    for (const char* key : {"decode", "decode_skip", "stream", "stream_skip"}) out[key] = json::array();
    for (const auto& list : job.value("id_lists", json::array())) {
      std::vector<std::int32_t> ids = list.get<std::vector<std::int32_t>>();
      out["decode"].push_back(tok.decode(ids, false));
      out["decode_skip"].push_back(tok.decode(ids, true));
      out["stream"].push_back(stream(tok, ids, false, &chunks_ok));
      out["stream_skip"].push_back(stream(tok, ids, true, &chunks_ok));
    }
    out["stream_chunks_utf8"] = chunks_ok;
    out["error"] = nullptr;
  } catch (const ogai::Error& e) {
    out["error"] = e.what();
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: tokenizer_batch JOBS.json OUT.json\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  json jobs = json::parse(in);
  json results = json::array();
  for (const auto& job : jobs["jobs"]) results.push_back(run_job(job));
  std::ofstream(argv[2]) << results.dump(-1, ' ', false, json::error_handler_t::replace);
  return 0;
}
