#include "chat/reply/response_parser.h"

#include "base/json_lenient.h"

namespace ogai::chat::reply {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

bool is_reasoning(const std::string& name) {
  return name == "thinking" || name == "reasoning" || name == "reasoning_content";
}

JsonPath joined(const JsonPath& a, const JsonPath& b) {
  JsonPath p = a;
  p.insert(p.end(), b.begin(), b.end());
  return p;
}

std::size_t char_length_of(unsigned char c) { return c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1; }

// One UTF-8 character's length at s[i] (1 for a stray byte).
std::size_t char_length(std::string_view s, std::size_t i) {
  const unsigned char c = s[i];
  std::size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  return std::min(n, s.size() - i);
}

std::string strip(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return std::string(s);
}

// A finished value of a non-streamed kind.
Json read_value(const ValueParser& p, std::string_view raw) {
  const std::string s = p.kind == ContentKind::kText && !p.strip ? std::string(raw) : strip(raw);
  switch (p.kind) {
    case ContentKind::kText: return s;
    case ContentKind::kJson: {
      const CanonicalJson c = canonical_json(s, p.dialect);
      Json j = c.ok ? parse_json_or_discarded<Json>(c.text) : Json();
      return c.ok && !j.is_discarded() ? j : Json(s);
    }
    case ContentKind::kInt: {
      Json j = parse_json_or_discarded<Json>(s);
      return j.is_number_integer() ? j : Json(s);
    }
    case ContentKind::kFloat: {
      Json j = parse_json_or_discarded<Json>(s);
      return j.is_number() ? Json(j.get<double>()) : Json(s);
    }
    case ContentKind::kBool:
      if (s == "true" || s == "True") return true;
      if (s == "false" || s == "False") return false;
      return s;
    case ContentKind::kXmlInline: return s;
  }
  return s;
}

// An xml-inline value as canonical JSON text.
std::string value_json(const std::optional<ValueParser>& p, std::string_view raw) {
  if (p && p->kind == ContentKind::kJson) {
    const CanonicalJson c = canonical_json(strip(raw), p->dialect);
    if (c.ok) return c.text;
    return Json(strip(raw)).dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  const Json v = p ? read_value(*p, raw) : Json(std::string(raw));
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

// A text field's streamed value: leading and trailing whitespace held back while `strip`.
struct ResponseParser::Text {
  bool strip = true;
  std::string value;    // everything released (all occurrences, joined)
  std::string current;  // this occurrence
  std::string held;
  bool any = false;         // something was released
  bool occ_any = false;     // something was released in this occurrence
  const std::string* join = nullptr;

  std::string push(std::string_view s) {
    if (!strip) return release(s);
    if (!occ_any) {
      std::size_t i = 0;
      while (i < s.size() && is_blank(s[i])) ++i;
      s.remove_prefix(i);
      if (s.empty()) return "";
    }
    std::size_t last = s.size();
    while (last > 0 && is_blank(s[last - 1])) --last;
    if (last == 0) {
      held.append(s);
      return "";
    }
    std::string piece = held;
    piece.append(s.substr(0, last));
    held.assign(s.substr(last));
    return release(piece);
  }
  std::string release(std::string_view s) {
    if (s.empty()) return "";
    std::string piece;
    if (!occ_any && any && join) piece = *join;
    piece.append(s);
    occ_any = any = true;
    current.append(s);
    value.append(piece);
    return piece;
  }
  std::string end_occurrence() {
    held.clear();
    occ_any = false;
    std::string done;
    done.swap(current);
    return done;
  }
};

// The tool-call region being read: its calls' names and arguments as the content arrives.
struct ResponseParser::Call : JsonSink {
  ResponseParser& p;
  const Field& f;
  std::unique_ptr<JsonStream> stream;
  std::size_t tag_pos = 0;  // xml-inline: where the next tag may start in p.body_
  int params = 0;
  int emitted = 0;          // calls released from this region
  bool first_text = true, not_array = false;
  // The current call.
  bool active = false;
  int element = -1;
  std::string name;
  bool name_known = false, name_rec = false, args_started = false, args_rec = false, args_done = false;
  bool header = false, args_string = false;
  std::string name_buf, args, pending, id;
  int index = -1;

  Call(ResponseParser& parser, const Field& field) : p(parser), f(field) {}

  JsonPath root() const { return element >= 0 ? JsonPath{std::to_string(element)} : JsonPath{}; }

  void begin(int e) {
    active = true;
    element = e;
    name.clear();
    name_known = name_rec = args_started = args_rec = args_done = header = args_string = false;
    name_buf.clear();
    args.clear();
    pending.clear();
    if (f.call_name.kind == CallSource::Kind::kLiteral) {
      name = f.call_name.literal;
      name_known = true;
    } else if (f.call_name.kind == CallSource::Kind::kCapture) {
      auto it = p.captures_.find(f.call_name.capture);
      if (it != p.captures_.end() && !it->second.empty()) {
        name = it->second;
        name_known = true;
      }
    }
  }

  void start(const JsonPath& path) override {
    if (f.transform_each && path.size() == 1 && !not_array) begin(std::stoi(path[0]));
    if (!active) return;
    if (f.call_name.kind == CallSource::Kind::kContent && path == joined(root(), f.call_name.path)) {
      name_rec = true;
      name_buf.clear();
    }
    if (path == joined(root(), f.call_arguments.path)) {
      args_rec = args_started = true;
      maybe_header();
    }
  }
  void text(std::string_view t) override {
    if (first_text) {
      first_text = false;
      if (f.transform_each && t != "[") not_array = true;
    }
    if (!active) return;
    if (name_rec) name_buf.append(t);
    if (args_rec) add_args(t);
  }
  void end(const JsonPath& path) override {
    if (!active) return;
    if (name_rec && path == joined(root(), f.call_name.path)) {
      name_rec = false;
      Json n = parse_json_or_discarded<Json>(name_buf);
      if (n.is_string() && !n.get<std::string>().empty()) {
        name = n.get<std::string>();
        name_known = true;
        maybe_header();
      }
    }
    if (args_rec && path == joined(root(), f.call_arguments.path)) {
      args_rec = false;
      args_done = true;
      if (args_string) release_string_args();
    }
    if (f.transform_each && path.size() == 1) complete();
  }

  void add_args(std::string_view t) {
    if (args.empty() && t.starts_with("\"")) args_string = true;  // arguments as a JSON string: held
    args.append(t);
    if (args_string) return;
    if (header) p.emit_arguments(index, t);
    else pending.append(t);
  }
  // Arguments given as a JSON string: the string's text (canonical when it is JSON itself).
  void release_string_args() {
    Json s = parse_json_or_discarded<Json>(args);
    std::string text = s.is_string() ? s.get<std::string>() : "{}";
    const CanonicalJson c = canonical_json(text, JsonDialect{});
    args = c.ok ? c.text : text;
    if (header) p.emit_arguments(index, args);
    else pending = args;
  }
  void maybe_header() {
    if (header || !name_known || !args_started) return;
    emit_header();
  }
  void emit_header() {
    header = true;
    index = static_cast<int>(p.reply_.tool_calls.size());
    id = p.emit_header(index, name);
    if (!pending.empty()) p.emit_arguments(index, pending);
    pending.clear();
  }
  // The call ended (its element closed, or the region). False when it was not a call.
  bool complete() {
    if (!active) return false;
    active = false;
    if (!header) {
      if (!name_known || (stream && stream->failed() && !args_started)) return false;
      emit_header();
    }
    if (!args_started) add_args("{}");
    else if (!args_done && stream) add_args(stream->closers(joined(root(), f.call_arguments.path).size()));
    if (args_string && !args_done) release_string_args();
    p.add_call(id, name, args);
    ++emitted;
    return true;
  }

  // xml-inline: the tags in p.body_ from tag_pos on.
  void read_tags(bool at_end) {
    while (true) {
      PatternMatch m = f.tag_pattern->find(p.body_, tag_pos, !at_end);
      if (m.kind != PatternMatch::Kind::kFull) {
        if (m.kind == PatternMatch::Kind::kNone) tag_pos = p.body_.size();
        else tag_pos = m.start;
        return;
      }
      tag_pos = std::max(m.end, m.start + 1);
      std::string piece = params++ == 0 ? "{" : ",";
      piece += Json(m.groups["key"]).dump(-1, ' ', false, Json::error_handler_t::replace) + ":";
      piece += value_json(f.value_parser, m.groups["value"]);
      add_args(piece);
    }
  }
};

ResponseParser::ResponseParser(std::shared_ptr<const ResponseTemplate> tmpl, std::string_view prefix,
                               bool parse_tool_calls)
    : t_(std::move(tmpl)), parse_tool_calls_(parse_tool_calls), rng_(std::random_device{}()) {
  for (const Field& f : t_->fields) {
    auto text = std::make_unique<Text>();
    text->strip = f.parser.strip;
    text->join = f.join ? &*f.join : nullptr;
    texts_.push_back(std::move(text));
    values_.emplace_back();
  }
  std::size_t from = 0;
  if (t_->start_anchor) {
    for (std::size_t at = 0; at <= prefix.size();) {
      PatternMatch m = t_->start_anchor->find(prefix, at, false);
      if (m.kind != PatternMatch::Kind::kFull) break;
      from = m.end;
      at = std::max(m.end, m.start + 1);
    }
  }
  ChatReplyDelta ignored;
  out_ = &ignored;
  text_.assign(prefix.substr(from));
  while (step()) {
  }
  out_ = nullptr;
  reset_after_prefix();
}

ResponseParser::~ResponseParser() = default;

void ResponseParser::reset_after_prefix() {
  open_in_prefix_ = open_ >= 0 ? t_->fields[open_].name : "";
  for (auto& t : texts_) {
    auto fresh = std::make_unique<Text>();
    fresh->strip = t->strip;
    fresh->join = t->join;
    t = std::move(fresh);
  }
  for (auto& v : values_) v.clear();
  reply_ = {};
  call_values_.clear();
  leftover_.clear();
  stopped_ = false;
  any_region_ = open_ >= 0;
  if (open_ < 0) {  // the reply starts the subject: `^` anchors at its start
    text_.erase(0, pos_);
    pos_ = 0;
    zero_open_at_ = std::string::npos;
  }
}

ChatReplyDelta ResponseParser::feed(std::string_view text) {
  ChatReplyDelta out;
  out_ = &out;
  // Whole UTF-8 characters only: an incomplete one at the end waits for its other bytes.
  partial_utf8_.append(text);
  std::size_t keep = 0;
  for (std::size_t back = 1; back <= std::min<std::size_t>(3, partial_utf8_.size()); ++back) {
    const unsigned char c = partial_utf8_[partial_utf8_.size() - back];
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte
    if (c >= 0xC0 && char_length_of(c) > back) keep = back;
    break;
  }
  text_.append(partial_utf8_, 0, partial_utf8_.size() - keep);
  partial_utf8_.erase(0, partial_utf8_.size() - keep);
  while (step()) {
  }
  out_ = nullptr;
  return out;
}

ChatReplyDelta ResponseParser::finish() {
  ChatReplyDelta out;
  out_ = &out;
  text_.append(partial_utf8_);
  partial_utf8_.clear();
  at_end_ = true;
  while (step()) {
  }
  if (open_ >= 0) close_region({});
  if (t_->implicit >= 0) texts_[t_->implicit]->end_occurrence();
  else if (!any_region_ && !leftover_.empty()) {
    Text whole;
    std::string piece = whole.push(leftover_);
    out.content += piece;
    reply_.content += piece;
    leftover_content_ = whole.value;
  }
  for (std::size_t i = 0; i < texts_.size(); ++i)
    if (static_cast<int>(i) != t_->implicit) texts_[i]->held.clear();
  out_ = nullptr;
  return out;
}

bool ResponseParser::step() {
  if (stopped_) {
    pos_ = text_.size();
    return false;
  }
  if (pos_ >= text_.size() && !at_end_) return false;
  return open_ >= 0 ? scan_region() : scan_openers();
}

bool ResponseParser::scan_openers() {
  PatternMatch best;
  int best_field = -1;
  auto consider = [&](PatternMatch m, int field) {
    if (m.kind == PatternMatch::Kind::kNone) return;
    const bool full = m.kind == PatternMatch::Kind::kFull;
    if (full && m.end == m.start && m.start == zero_open_at_ && field >= 0) return;  // no progress
    const bool better = best.kind == PatternMatch::Kind::kNone || m.start < best.start ||
                        (m.start == best.start && full && best.kind != PatternMatch::Kind::kFull);
    if (!better) return;
    best = std::move(m);
    best_field = field;
  };
  for (std::size_t i = 0; i < t_->fields.size(); ++i) {
    const Field& f = t_->fields[i];
    if (!f.open || (f.name == "tool_calls" && !parse_tool_calls_)) continue;
    consider(f.open->find(text_, pos_, !at_end_), static_cast<int>(i));
  }
  if (t_->implicit >= 0 && t_->fields[t_->implicit].close)
    consider(t_->fields[t_->implicit].close->find(text_, pos_, !at_end_), -2);
  if (best.kind == PatternMatch::Kind::kNone) {
    release(pos_, text_.size());
    pos_ = text_.size();
    return false;
  }
  release(pos_, best.start);
  pos_ = best.start;
  if (best.kind == PatternMatch::Kind::kPartial) return false;
  if (best_field == -2) {
    stopped_ = true;
    pos_ = text_.size();
    return false;
  }
  if (best.end == best.start) zero_open_at_ = best.start;
  open_region(best_field, best);
  return true;
}

bool ResponseParser::scan_region() {
  const Field& f = t_->fields[open_];
  if (f.close) {
    PatternMatch m = f.close->find(text_, pos_, !at_end_);
    const std::size_t until = m.kind == PatternMatch::Kind::kNone ? text_.size() : m.start;
    region_body(std::string_view(text_).substr(pos_, until - pos_));
    pos_ = until;
    if (m.kind == PatternMatch::Kind::kFull) {
      pos_ = m.end;
      close_region(m.groups);
      return true;
    }
    if (m.kind == PatternMatch::Kind::kNone && at_end_) {
      close_region({});
      return true;
    }
    return false;
  }
  region_body(std::string_view(text_).substr(pos_));
  pos_ = text_.size();
  if (call_ && call_->stream && (call_->stream->done() || call_->stream->failed())) {
    if (call_->stream->done()) {
      pos_ = body_start_ + call_->stream->value_end();
    } else {
      pos_ = std::min(text_.size(), body_start_ + call_->stream->fail_at());
      if (pos_ < text_.size()) pos_ += char_length(text_, pos_);
    }
    close_region({});
    return true;
  }
  if (at_end_) {
    close_region({});
    return true;
  }
  return false;
}

void ResponseParser::release(std::size_t from, std::size_t to) {
  if (to <= from) return;
  const std::string_view s = std::string_view(text_).substr(from, to - from);
  if (t_->implicit < 0) {
    leftover_.append(s);
    return;
  }
  route(t_->fields[t_->implicit], texts_[t_->implicit]->push(s));
}

void ResponseParser::open_region(int field, const PatternMatch& m) {
  open_ = field;
  any_region_ = true;
  region_start_ = m.start;
  body_start_ = m.end;
  pos_ = m.end;
  captures_ = m.groups;
  body_.clear();
  const Field& f = t_->fields[field];
  if (f.name != "tool_calls") return;
  call_ = std::make_unique<Call>(*this, f);
  if (f.parser.kind == ContentKind::kJson) {
    call_->stream = std::make_unique<JsonStream>(f.parser.dialect, *call_);
    if (!f.transform_each) call_->begin(-1);
  } else {
    call_->begin(-1);
    call_->args_started = true;
    call_->maybe_header();
  }
}

void ResponseParser::region_body(std::string_view text) {
  if (text.empty()) return;
  const Field& f = t_->fields[open_];
  if (call_) {
    if (call_->stream) {
      call_->stream->feed(text);
    } else {
      body_.append(text);
      call_->read_tags(false);
    }
    return;
  }
  if (f.parser.kind == ContentKind::kText) route(f, texts_[open_]->push(text));
  else body_.append(text);
}

void ResponseParser::close_region(const std::map<std::string, std::string>& close_groups) {
  const Field& f = t_->fields[open_];
  for (const auto& [k, v] : close_groups) captures_[k] = v;
  const std::size_t region_end = pos_;
  if (call_) {
    if (call_->stream) {
      call_->stream->finish();
      if (call_->active) call_->complete();
    } else {
      call_->read_tags(true);
      if (call_->params > 0) call_->add_args("}");
      call_->complete();
    }
    const bool none = call_->emitted == 0;
    call_.reset();
    open_ = -1;
    if (none) fall_back(std::string_view(text_).substr(region_start_, region_end - region_start_));
    return;
  }
  const int i = open_;
  open_ = -1;
  if (f.parser.kind == ContentKind::kText) {
    std::string v = texts_[i]->end_occurrence();
    if (f.repeats && !f.join) values_[i].push_back(v);
    return;
  }
  Json vars = Json::object();
  for (const auto& [k, v] : captures_) vars[k] = v;
  vars["content"] = read_value(f.parser, body_);
  values_[i].push_back(f.transform ? apply_transform(*f.transform, vars) : vars["content"]);
  body_.clear();
}

void ResponseParser::fall_back(std::string_view raw) {
  int target = t_->implicit;
  if (target < 0)
    for (std::size_t i = 0; i < t_->fields.size(); ++i)
      if (t_->fields[i].name == "content") target = static_cast<int>(i);
  if (target < 0) {
    leftover_.append(raw);
    return;
  }
  route(t_->fields[target], texts_[target]->push(raw));
}

void ResponseParser::route(const Field& f, std::string_view piece) {
  if (piece.empty() || !out_) return;
  if (f.name == "content") {
    out_->content.append(piece);
    reply_.content.append(piece);
  } else if (is_reasoning(f.name)) {
    out_->reasoning_content.append(piece);
    reply_.reasoning_content.append(piece);
  }
}

std::string ResponseParser::emit_header(int index, const std::string& name) {
  std::string id = new_id();
  if (out_) out_->tool_calls.push_back({index, id, name, ""});
  return id;
}

void ResponseParser::emit_arguments(int index, std::string_view text) {
  if (!out_ || text.empty()) return;
  auto& calls = out_->tool_calls;
  if (!calls.empty() && calls.back().index == index && calls.back().id.empty()) calls.back().arguments.append(text);
  else calls.push_back({index, "", "", std::string(text)});
}

void ResponseParser::add_call(const std::string& id, const std::string& name, const std::string& arguments) {
  reply_.tool_calls.push_back({id, name, arguments});
  Json args = parse_json_or_discarded<Json>(arguments);
  if (args.is_discarded()) args = arguments;
  call_values_.push_back({{"type", "function"}, {"function", {{"name", name}, {"arguments", std::move(args)}}}});
}

std::string ResponseParser::new_id() {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string id = "call_";
  for (int i = 0; i < 24; ++i) id += kAlphabet[rng_() % (sizeof(kAlphabet) - 1)];
  return id;
}

Json ResponseParser::message() const {
  Json m = t_->defaults;
  auto put = [&](const Field& f, std::size_t i) {
    if (f.name == "tool_calls") {
      if (!call_values_.empty()) m["tool_calls"] = call_values_;
      return;
    }
    if (f.parser.kind == ContentKind::kText) {
      const Text& t = *texts_[i];
      if (f.repeats && !f.join) {
        Json list = Json::array();
        for (const Json& v : values_[i])
          if (!v.get<std::string>().empty()) list.push_back(v);
        if (!list.empty()) m[f.name] = list;
      } else {
        std::string v = t.value;
        if (f.name == "content" && v.empty()) v = leftover_content_;
        if (!v.empty()) m[f.name] = f.transform ? apply_transform(*f.transform, {{"content", v}}) : Json(v);
      }
      return;
    }
    if (values_[i].empty()) return;
    m[f.name] = f.repeats ? Json(values_[i]) : values_[i].back();
  };
  for (const char* first : {"content", "thinking"})
    for (std::size_t i = 0; i < t_->fields.size(); ++i)
      if (t_->fields[i].name == first) put(t_->fields[i], i);
  for (std::size_t i = 0; i < t_->fields.size(); ++i) {
    const std::string& n = t_->fields[i].name;
    if (n != "content" && n != "thinking" && n != "tool_calls") put(t_->fields[i], i);
  }
  for (std::size_t i = 0; i < t_->fields.size(); ++i)
    if (t_->fields[i].name == "tool_calls") put(t_->fields[i], i);
  if (!m.contains("content") && !leftover_content_.empty()) m["content"] = leftover_content_;
  return m;
}

}  // namespace ogai::chat::reply
