// Unguessable identifiers: bytes from the kernel's CSPRNG (getrandom(2)), never from a seeded
// generator whose outputs give away its state. For ids a client may present back to the server
// (stored responses, items, requests): 128 bits are out of reach of guessing.
// Thread-safe; throws ogai::Error (kInternal) only when the kernel refuses (it never blocks once
// the system has booted).
#pragma once

#include <cstddef>
#include <string>

namespace ogai {

// `bytes` random bytes as 2 * `bytes` lower-case hex digits.
std::string secure_random_hex(std::size_t bytes = 16);

}  // namespace ogai
