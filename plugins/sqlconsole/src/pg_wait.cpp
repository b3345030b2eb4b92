#include "pg_wait.hpp"

#include <poll.h>
#include <berth/common/sql_text.hpp>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>

namespace berth::sqlconsole {
namespace {

constexpr std::chrono::seconds kAfterCancel{10};

std::string field(const PGresult* result, int code) {
  const char* value = PQresultErrorField(result, code);
  return value != nullptr ? value : "";
}

void cancel(PGconn* conn) {
  std::unique_ptr<PGcancel, decltype(&PQfreeCancel)> handle(PQgetCancel(conn), &PQfreeCancel);
  if (!handle) return;
  char error[256];
  PQcancel(handle.get(), error, sizeof error);  // a failure leaves the hard limit to act
}

}  // namespace

bool failed(const PGresult* result) {
  const ExecStatusType status = PQresultStatus(result);
  return status == PGRES_FATAL_ERROR || status == PGRES_BAD_RESPONSE ||
         status == PGRES_NONFATAL_ERROR;
}

PgError errorOf(PGconn* conn, const PGresult* result) {
  std::string primary = field(result, PG_DIAG_MESSAGE_PRIMARY);
  if (primary.empty()) primary = common::pqMessageWithoutSeverity(PQresultErrorMessage(result));
  if (primary.empty()) primary = common::pqMessageWithoutSeverity(PQerrorMessage(conn));
  return PgError(primary, field(result, PG_DIAG_SQLSTATE), field(result, PG_DIAG_MESSAGE_DETAIL));
}

PgResult nextResult(PGconn* conn, Deadline& deadline) {
  bool cancelled = false;
  Clock::time_point give_up = Clock::time_point::max();
  while (PQisBusy(conn)) {
    const Clock::time_point now = Clock::now();
    const Clock::time_point until = cancelled ? give_up : deadline.cancelAt;
    int timeout_ms = -1;
    if (until != Clock::time_point::max()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
      timeout_ms = left > 0 ? static_cast<int>(std::min<long long>(left, 60'000)) : 0;
    }
    pollfd fd{PQsocket(conn), POLLIN, 0};
    if (fd.fd < 0) throw PgError(common::pqMessageWithoutSeverity(PQerrorMessage(conn)), "08006");
    const int ready = ::poll(&fd, 1, timeout_ms);
    if (ready < 0 && errno != EINTR) throw PgError("waiting for the database failed", "08006");
    if (ready == 0) {
      if (Clock::now() < until) continue;
      if (cancelled) throw PgError("the database did not stop the statement", "08006");
      cancel(conn);
      cancelled = true;
      give_up = Clock::now() + kAfterCancel;
      continue;
    }
    if (ready > 0 && PQconsumeInput(conn) == 0) {
      throw PgError(common::pqMessageWithoutSeverity(PQerrorMessage(conn)), "08006");
    }
  }
  return PgResult(PQgetResult(conn));
}

PgResult finishCommand(PGconn* conn, Deadline& deadline) {
  PgResult last;
  std::optional<PgError> error;
  while (PgResult result = nextResult(conn, deadline)) {
    const ExecStatusType status = PQresultStatus(result.get());
    if (failed(result.get())) {
      if (!error) error = errorOf(conn, result.get());
      continue;
    }
    if (status == PGRES_COPY_IN) {
      // Nothing here sends COPY data; end it so the connection comes back.
      PQputCopyEnd(conn, "COPY FROM STDIN is not supported here");
      continue;
    }
    if (status == PGRES_COPY_OUT) {
      char* buffer = nullptr;
      while (PQgetCopyData(conn, &buffer, 0) > 0) PQfreemem(buffer);
      continue;
    }
    last = std::move(result);
  }
  if (error) throw *error;
  return last;
}

}  // namespace berth::sqlconsole
