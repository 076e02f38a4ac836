// Reading files and streams a user names, by type and under a budget (issue 37: a FIFO was waited
// on forever, /dev/zero read until memory ran out).
//
// What is not a regular file (a FIFO, a socket, a device such as /dev/zero, a directory) is
// refused by its type before anything blocks on it or reads it forever; every read has a size
// budget. read_file(path) and MappedFile (base/file.h) apply the same checks, read_file with the
// kMaxFileBytes budget. Standard input, often a pipe, is read under a budget instead. Errors name
// the path and the cause. Thread-safe (no shared state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "ogai/error.h"

namespace ogai {

// What a whole-file read takes at most unless the caller names another budget.
inline constexpr std::uint64_t kMaxFileBytes = std::uint64_t{1} << 30;  // 1 GiB
// What a command reads at most of text a user hands it (standard input, a prompts file, a reply,
// a tools file): an endless or huge input is refused naming this budget instead of filling memory.
inline constexpr std::uint64_t kMaxTextInputBytes = std::uint64_t{64} << 20;  // 64 MiB

// Reads a whole regular file as bytes. Throws ogai::Error naming the path: kNotFound (missing),
// kInvalidArgument (not a regular file: "is a FIFO (named pipe), expected a regular file"; or
// larger than max_bytes, also when it grows past it while read), kRuntime (another failure, with
// its cause).
std::string read_file(const std::filesystem::path& path, std::uint64_t max_bytes);

// The first `n` bytes of a regular file (fewer when it is shorter); refuses what read_file refuses.
std::string read_file_head(const std::filesystem::path& path, std::size_t n);

// Opens a regular file for reading (O_RDONLY | O_CLOEXEC) without blocking on what is not one,
// refusing it as read_file does; the caller owns (closes) the descriptor.
int open_regular_file(const std::filesystem::path& path);

// Reads standard input to its end. More than max_bytes is refused (kInvalidArgument naming `what`
// and the budget) after reading at most max_bytes + 1 bytes.
std::string read_stdin(std::string_view what, std::uint64_t max_bytes);

// A std::filesystem error as an ogai::Error naming its path and the cause, without the library's
// "filesystem error:" prefix: ENOENT / ENOTDIR kNotFound; ENAMETOOLONG / ELOOP kInvalidArgument;
// others kRuntime ("/a/b: File name too long").
Error filesystem_error_as_error(const std::filesystem::filesystem_error& e);

// What a file of st_mode `mode` is, for messages: "a FIFO (named pipe)", "a character device", ...
const char* file_type_name(unsigned mode);

}  // namespace ogai
