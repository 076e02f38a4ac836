// ONNX Runtime's optimized-model cache: a session's graph after ORT's optimizations, with its
// weights pre-packed for this CPU, saved once into a cache directory and loaded from there on the
// next start without optimizing or pre-packing again (docs/performance.md, "Cold start").
//
// An entry is `<cache_dir>/<16 hex digits>/` holding model.onnx, model.onnx.data (the weights and
// their pre-packed forms, memory-mapped on load) and key.txt. The key is the text of everything the
// saved graph depends on: the ONNX Runtime version, the execution provider, the optimization level
// and config entries, this CPU (/proc/cpuinfo's model name and flags: pre-packed layouts are
// specific to the kernels chosen for it), a hash of the model bytes and each external-data file's
// name, size and modification time. An entry is used only when key.txt equals the key and records
// the sizes and hash of what it holds, and when the directory and files are not symbolic links,
// belong to this user and are writable by no one else (and key.txt is at most 1 MiB, the graph
// at most 256 MiB: what is read to check them); anything else is rebuilt (an entry of this
// user's) or left alone (someone else's: then no cache is used). Entries are written into a staging
// directory and renamed into place, so a reader never sees half an entry; files ogai did not create
// are never overwritten. CPU provider only (others bypass the cache). Not thread-safe for the same
// entry across processes beyond that rename (the loser of a race uses its own session uncached).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "ort/session.h"

namespace ogai::ort {

enum class CacheUse { kHit, kBuilt, kBypassed };

// A session on `model_bytes` (binary ModelProto; external data resolved in `external_data_dir`)
// through the cache in `cache_dir` (created if missing). `use` (optional) says what happened. A
// failure to build or save an entry is logged (warn) and the session created without the cache.
Session open_cached(const std::filesystem::path& cache_dir, std::string_view model_bytes,
                    const std::filesystem::path& external_data_dir, const SessionOptions& options,
                    const std::string& origin, CacheUse* use = nullptr);

// The key text for those inputs (for tests and diagnostics).
std::string cache_key(std::string_view model_bytes, const std::filesystem::path& external_data_dir,
                      const SessionOptions& options, const std::string& origin);

}  // namespace ogai::ort
