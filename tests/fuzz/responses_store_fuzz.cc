// libFuzzer target: the Responses store's id lookup (GET /v1/responses/{id}, previous_response_id)
// with arbitrary ids and owners. The input is a program of operations on one small store (8
// entries, 4 KiB): put, get, response; each names an id (any bytes, up to 64 KiB; a GET path's
// id is percent-decoded into any bytes) and one of three owners (API keys). Besides crashes and
// sanitizer reports it checks the store's contract against a shadow map of what was put: a lookup
// finds an entry only under the id and owner it was put with, never another owner's; the bounds
// hold after every operation. Inputs up to 16 MB (scripts/fuzz.sh).
#include <cstdlib>
#include <map>
#include <string>

#include "fuzz_support.h"
#include "serve/responses/responses_store.h"

namespace {

struct Reader {
  const std::uint8_t* data;
  std::size_t size, at = 0;
  bool done() const { return at >= size; }
  std::uint8_t byte() { return at < size ? data[at++] : 0; }
  std::string bytes(std::size_t n) {
    n = std::min(n, size - std::min(at, size));
    std::string out(reinterpret_cast<const char*>(data) + at, n);
    at += n;
    return out;
  }
};

void require(bool ok) {
  if (!ok) std::abort();  // the fuzzer reports it as a crash
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using ogai::serve::ResponsesStore;
  const std::string owners[] = {"", "key-a", "key-b"};
  ResponsesStore store(8, 4096);
  std::map<std::string, std::string> put_by;  // id -> the owner of its latest put
  Reader in{data, size};
  while (!in.done()) {
    const std::uint8_t op = in.byte();
    const std::size_t length = static_cast<std::size_t>(in.byte()) << 8 | in.byte();
    const std::string id = in.bytes(length);
    const std::string& owner = owners[(op >> 2) % 3];
    switch (op & 3) {
      case 0: {  // put: a conversation that names its size, not its id (ids are any bytes)
        const nlohmann::json conversation = nlohmann::json::array(
            {{{"role", "user"}, {"content", std::string(in.byte(), 'x')}}});
        store.put(id, conversation, {{"object", "response"}}, owner);
        put_by[id] = owner;
        break;
      }
      case 1:
      case 2: {
        const auto found = (op & 3) == 1 ? store.get(id, owner) : store.response(id, owner);
        if (found) {  // found: put under this id by this owner (it may have been evicted since, not changed)
          const auto it = put_by.find(id);
          require(it != put_by.end() && it->second == owner);
        }
        break;
      }
      default: {  // the same id under every other owner finds nothing unless that owner put it last
        for (const std::string& other : owners) {
          const auto it = put_by.find(id);
          if (store.get(id, other)) require(it != put_by.end() && it->second == other);
        }
      }
    }
    require(store.size() <= 8 && store.bytes() <= 4096);
  }
  return 0;
}
