// One Prometheus text exposition (version 0.0.4) from the router's own and its loaded models':
// each metric family appears once, with its HELP and TYPE lines. The router's families (HTTP
// requests, replica and build info, process metrics, model states) come from `server` as they
// are; every other family is gathered from the models' texts, each sample labelled model="ID"
// (first label). A model's family that `server` also has is dropped (the router counts it).
// Expects the writers' own output (serve/ops/metrics.h): HELP/TYPE before a family's samples.
// Pure function; thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ogai::serve::router {

// `models`: (id, text) pairs, in the order their samples are listed within a family.
std::string merge_model_metrics(const std::string& server, const std::vector<std::pair<std::string, std::string>>& models);

// `sample` ("name{a=\"b\"} 1" or "name 1") with model="ID" as its first label; ID escaped.
std::string with_model_label(const std::string& sample, const std::string& id);

}  // namespace ogai::serve::router
