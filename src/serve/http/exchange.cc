#include "serve/http/exchange.h"

#include "serve/http/connection.h"

namespace ogai::serve::http {

Exchange::Exchange(std::shared_ptr<Connection> connection, std::uint64_t id, Request request,
                   std::shared_ptr<void> keep_running)
    : keep_running_(std::move(keep_running)), connection_(std::move(connection)), id_(id),
      request_(std::move(request)) {}

Exchange::~Exchange() {
  if (!answered_) connection_->abandon(id_);
  else if (streaming_ && !finished_) connection_->finish(id_);
}

void Exchange::respond(Response response) {
  answered_ = true;
  connection_->respond(id_, std::move(response));
}

void Exchange::begin_stream(Response head) {
  answered_ = true;
  streaming_ = true;
  connection_->begin_stream(id_, std::move(head));
}

void Exchange::write(std::string data, std::function<void(bool ok)> done) {
  connection_->write(id_, std::move(data), std::move(done));
}

void Exchange::finish() {
  finished_ = true;
  connection_->finish(id_);
}

}  // namespace ogai::serve::http
