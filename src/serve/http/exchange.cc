#include "serve/http/exchange.h"

#include "serve/http/connection.h"

namespace ogai::serve::http {

void ClientGone::listen(std::function<void()> listener) {
  {
    std::lock_guard lock(mutex_);
    if (!fired_) {
      listener_ = std::move(listener);
      return;
    }
  }
  if (listener) listener();
}

void ClientGone::fire() {
  std::function<void()> listener;
  {
    std::lock_guard lock(mutex_);
    if (fired_) return;
    fired_ = true;
    listener = std::move(listener_);
  }
  if (listener) listener();
}

bool ClientGone::fired() const {
  std::lock_guard lock(mutex_);
  return fired_;
}

Exchange::Exchange(std::shared_ptr<Connection> connection, std::uint64_t id, Request request,
                   std::shared_ptr<void> keep_running, std::shared_ptr<ClientGone> gone)
    : keep_running_(std::move(keep_running)), connection_(std::move(connection)), id_(id),
      request_(std::move(request)), gone_(std::move(gone)) {}

Exchange::~Exchange() {
  if (!answered_) connection_->abandon(id_);
  else if (streaming_ && !finished_) connection_->finish(id_);
  if (annotations_.on_done) annotations_.on_done(status_, body_bytes_);
}

namespace {

void add_fields(Response& response, const std::vector<Field>& fields) {
  response.fields.insert(response.fields.end(), fields.begin(), fields.end());
}

}  // namespace

void Exchange::respond(Response response) {
  if (answered_) return;  // one answer per request
  answered_ = true;
  status_ = response.status;
  body_bytes_ = response.body.size();
  add_fields(response, annotations_.fields);
  connection_->respond(id_, std::move(response));
}

void Exchange::begin_stream(Response head) {
  if (answered_) return;
  answered_ = true;
  status_ = head.status;
  add_fields(head, annotations_.fields);
  streaming_ = true;
  connection_->begin_stream(id_, std::move(head));
}

void Exchange::write(std::string data, std::function<void(bool ok)> done) {
  body_bytes_ += data.size();
  connection_->write(id_, std::move(data), std::move(done));
}

void Exchange::finish() {
  finished_ = true;
  connection_->finish(id_);
}

}  // namespace ogai::serve::http
