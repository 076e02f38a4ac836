// pipeline.workflow.serving: active/done/accepted_len and the state-service groups.
#include "metadata/parse_internal.h"

namespace ogai::metadata::detail {
namespace {

StateAlias read_alias(Reader& r, const Node& node, const std::string& path) {
  StateAlias a;
  Fields f(r, &node, path);
  a.input = f.string_or("input", "", true);
  a.output = f.string("output");
  a.read_only = f.one_of("access", {"read_write", "read_only"}).value_or("read_write") == "read_only";
  if (auto role = f.choice("role", {"key", "value", "combined"})) a.role = static_cast<KvRole>(*role);
  a.layer = f.integer("layer", 0);
  return a;
}

NamedMap<std::string> read_port_map(Reader& r, const Node* node, const std::string& path) {
  NamedMap<std::string> out;
  r.entries(node, path, [&](const std::string& component, const Node& v, const std::string& p) {
    if (auto port = r.string(&v, p)) out.emplace_back(component, *port);
  });
  return out;
}

StateUpdate read_update(Reader& r, const Node& node, const std::string& path) {
  StateUpdate u;
  Fields f(r, &node, path);
  u.kind = static_cast<StateUpdate::Kind>(f.choice("kind", {"append", "replace", "indexed_scatter"}, true).value_or(0));
  if (u.kind == StateUpdate::Kind::kIndexedScatter) {
    u.write_indices = f.string_or("write_indices", "", true);
    u.capacity = f.string_or("capacity", "", true);
    u.write_indices_ports = read_port_map(r, f.get("write_indices_ports"), f.at("write_indices_ports"));
    u.kv_length_ports = read_port_map(r, f.get("kv_length_ports"), f.at("kv_length_ports"));
  }
  return u;
}

void read_group_capabilities(Reader& r, const Node* node, const std::string& path, StateGroup& g) {
  Fields f(r, node, path);
  g.rollback_positions = f.integer("rollback_positions", 0);
  g.snapshot = f.boolean("snapshot", false);
  g.fork = f.boolean("fork", false);
  g.cascade = f.strings("cascade");
}

StateGroup read_group(Reader& r, const Node& node, const std::string& path) {
  StateGroup g;
  Fields f(r, &node, path, {{"storage", "allocator policy is runtime-owned"},
                            {"paging", "allocator policy is runtime-owned"},
                            {"slot_allocation", "allocator policy is runtime-owned"},
                            {"shared_buffer", "replaced by the graph-ABI fact `aliasing`"}});
  g.kind = static_cast<GroupKind>(f.choice("kind", {"full_attention", "sliding_attention", "multi_latent_attention",
                                                    "recurrent", "cross_attention", "encoder"}, true).value_or(0));
  g.sequence_axis = f.integer("sequence_axis", 0);
  g.layout = f.string_or("layout", "", true);
  g.logical_lengths = f.string("logical_lengths");
  g.total_length = f.string("total_length");
  g.aliasing = static_cast<Aliasing>(f.choice("aliasing", {"permitted", "required", "forbidden"}).value_or(2));
  if (const Node* update = f.get("update")) g.update = read_update(r, *update, f.at("update"));
  if (const Node* reuse = f.get("reuse")) {
    Fields u(r, reuse, f.at("reuse"));
    g.prefix_reusable = u.boolean("prefix_reusable", false);
    g.evictable_prefix = u.boolean("evictable_prefix", false);
  }
  read_group_capabilities(r, f.get("capabilities"), f.at("capabilities"), g);
  if (const Node* checkpoint = f.get("checkpoint")) {
    Fields c(r, checkpoint, f.at("checkpoint"));
    g.checkpoint = std::pair{c.string_or("adapter", "", true), c.string_or("version", "", true)};
  }
  r.entries(f.get("ports"), f.at("ports"), [&](const std::string& component, const Node& v, const std::string& p) {
    NamedMap<StateAlias> aliases;
    r.entries(&v, p, [&](const std::string& cell, const Node& a, const std::string& ap) {
      aliases.emplace_back(cell, read_alias(r, a, ap));
    });
    g.ports.emplace_back(component, std::move(aliases));
  });
  return g;
}

}  // namespace

Serving read_serving(Reader& r, const Node& node, const std::string& path) {
  Serving s;
  Fields f(r, &node, path, {{"slot_ids", "row identity is runtime-owned; batch_layout says where rows are"},
                            {"kv_service", "replaced by serving.state_service groups"}});
  s.active = f.string_or("active", "", true);
  s.done = f.string_or("done", "", true);
  s.accepted_len = f.string("accepted_len");
  const Node* service = f.need("state_service");
  Fields sf(r, service, f.at("state_service"));
  r.entries(sf.get("groups"), sf.at("groups"), [&](const std::string& name, const Node& v, const std::string& p) {
    s.groups.emplace_back(name, read_group(r, v, p));
  });
  return s;
}

}  // namespace ogai::metadata::detail
