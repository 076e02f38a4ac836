#include "serve/http/exchange.h"

#include "serve/http/connection.h"

namespace ogai::serve::http {

Exchange::Exchange(std::shared_ptr<Connection> connection, Request request, std::shared_ptr<void> keep_running)
    : keep_running_(std::move(keep_running)), connection_(std::move(connection)), request_(std::move(request)) {}

Exchange::~Exchange() {
  if (!answered_) connection_->abandon();
  else if (streaming_ && !finished_) connection_->finish();
}

void Exchange::respond(Response response) {
  answered_ = true;
  connection_->respond(std::move(response));
}

void Exchange::begin_stream(Response head) {
  answered_ = true;
  streaming_ = true;
  connection_->begin_stream(std::move(head));
}

void Exchange::write(std::string data, std::function<void(bool ok)> done) {
  connection_->write(std::move(data), std::move(done));
}

void Exchange::finish() {
  finished_ = true;
  connection_->finish();
}

}  // namespace ogai::serve::http
