#include "pg_session.hpp"

#include <poll.h>
#include <berth/common/sql_text.hpp>

#include <cerrno>
#include <ctime>

namespace berth::sqlconsole {

namespace {

std::string field(const PGresult* result, int code) {
  const char* value = PQresultErrorField(result, code);
  return value != nullptr ? value : "";
}

}  // namespace

PgSession PgSession::connect(const std::string& url,
                             const std::vector<std::pair<std::string, std::string>>& options,
                             std::chrono::seconds connect_timeout) {
  std::string server_options;
  for (const auto& [name, value] : options) {
    if (!server_options.empty()) server_options += ' ';
    server_options += "-c " + name + "=" + value;
  }
  // After the URL, so that this timeout wins over one the URL names.
  common::PgConnection::Keywords keywords = {
      {"dbname", url},
      {"connect_timeout", std::to_string(connect_timeout.count())},
      {"application_name", "berth-sqlconsole"}};
  if (!server_options.empty()) keywords.emplace_back("options", server_options);
  PgSession session(common::PgConnection::connect(keywords));
  if (!session.conn_) throw PgError("out of memory connecting to the database", "");
  if (!session.conn_.ok())
    throw PgError(common::pqMessageWithoutSeverity(PQerrorMessage(session.raw())), "");
  // Notices (e.g. "table does not exist, skipping") are not errors; keep them off stderr.
  session.conn_.dropNotices();
  return session;
}

PgResult checkResult(PGconn* conn, PGresult* raw) {
  PgResult result(raw);
  if (!result) throw PgError(common::pqMessageWithoutSeverity(PQerrorMessage(conn)), "");
  switch (PQresultStatus(result.get())) {
    case PGRES_FATAL_ERROR:
    case PGRES_BAD_RESPONSE:
    case PGRES_NONFATAL_ERROR: {
      std::string primary = field(result.get(), PG_DIAG_MESSAGE_PRIMARY);
      if (primary.empty())
        primary = common::pqMessageWithoutSeverity(PQresultErrorMessage(result.get()));
      if (primary.empty()) primary = common::pqMessageWithoutSeverity(PQerrorMessage(conn));
      throw PgError(primary, field(result.get(), PG_DIAG_SQLSTATE),
                    field(result.get(), PG_DIAG_MESSAGE_DETAIL));
    }
    default:
      return result;
  }
}

PgResult PgSession::exec(std::string_view sql, const PgParams& params) {
  std::string text(sql);
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const PgParam& p : params) values.push_back(p ? p->c_str() : nullptr);
  return checkResult(raw(), PQexecParams(raw(), text.c_str(), static_cast<int>(values.size()),
                                         nullptr, values.data(), nullptr, nullptr, 0));
}

PgResult PgSession::execSimple(std::string_view sql) {
  std::string text(sql);
  return checkResult(raw(), PQexec(raw(), text.c_str()));
}

namespace {

constexpr std::string_view kUndefinedPreparedStatement = "26000";

std::vector<const char*> valuePointers(const PgParams& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const PgParam& p : params) values.push_back(p ? p->c_str() : nullptr);
  return values;
}

}  // namespace

const std::string& PgSession::preparedName(const std::string& sql) {
  auto it = prepared_.find(sql);
  if (it != prepared_.end()) return it->second;
  if (prepared_.size() >= kMaxPrepared) {
    execSimple("DEALLOCATE ALL");
    prepared_.clear();
  }
  std::string name = "berth_s" + std::to_string(next_name_++);
  checkResult(raw(), PQprepare(raw(), name.c_str(), sql.c_str(), 0, nullptr));
  return prepared_.emplace(sql, std::move(name)).first->second;
}

PgResult PgSession::execPrepared(const std::string& sql, const PgParams& params) {
  std::vector<const char*> values = valuePointers(params);
  auto run = [&] {
    const std::string& name = preparedName(sql);
    return checkResult(raw(), PQexecPrepared(raw(), name.c_str(), static_cast<int>(values.size()),
                                             values.data(), nullptr, nullptr, 0));
  };
  try {
    return run();
  } catch (const PgError& e) {
    if (e.sqlstate() != kUndefinedPreparedStatement) throw;
    prepared_.erase(sql);  // deallocated behind our back: prepare it again
    return run();
  }
}

std::pair<PgOutcome, PgOutcome> PgSession::execPreparedPair(const std::string& first_sql,
                                                            const PgParams& first_params,
                                                            const std::string& second_sql,
                                                            const PgParams& second_params,
                                                            bool retried) {
  PgOutcome first, second;
  // A statement the database will not prepare (a column a kept catalogue still had) is that
  // statement's refusal; the other one still runs.
  auto prepare = [&](const std::string& sql, PgOutcome& outcome) -> std::optional<std::string> {
    try {
      return preparedName(sql);  // a copy: preparing the other may deallocate all
    } catch (const PgError& e) {
      if (e.isConnectionProblem()) throw;
      outcome.error = e;
      return std::nullopt;
    }
  };
  std::optional<std::string> first_name = prepare(first_sql, first);
  std::optional<std::string> second_name = prepare(second_sql, second);
  if (first_name && prepared_.find(first_sql) == prepared_.end())
    first_name = prepare(first_sql, first);
  std::vector<const char*> first_values = valuePointers(first_params);
  std::vector<const char*> second_values = valuePointers(second_params);
  PGconn* conn = raw();
  auto fail = [&]() -> PgError {
    broken_ = true;
    return PgError(common::pqMessageWithoutSeverity(PQerrorMessage(conn)), "");
  };
  auto send = [&](const std::optional<std::string>& name, const std::vector<const char*>& values) {
    if (!name) return;
    if (PQsendQueryPrepared(conn, name->c_str(), static_cast<int>(values.size()), values.data(),
                            nullptr, nullptr, 0) != 1 ||
        PQpipelineSync(conn) != 1)
      throw fail();
  };
  auto collect = [&](PgOutcome& outcome) {
    PGresult* raw_result = PQgetResult(conn);
    if (raw_result == nullptr) throw fail();
    try {
      outcome.result = checkResult(conn, raw_result);
    } catch (const PgError& e) {
      outcome.error = e;
    }
    // The statement's end, then its Sync.
    if (PQgetResult(conn) != nullptr) throw fail();
    PgResult sync(PQgetResult(conn));
    if (!sync || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) throw fail();
  };
  if (first_name || second_name) {
    if (PQenterPipelineMode(conn) != 1) throw fail();
    send(first_name, first_values);
    send(second_name, second_values);
    if (first_name) collect(first);
    if (second_name) collect(second);
    if (PQexitPipelineMode(conn) != 1) throw fail();
  }
  // A statement deallocated behind our back (the project's own SQL may run DEALLOCATE): prepare
  // both again and send them once more. Neither ran, or ran a statement that changes nothing
  // but settings it sets again.
  auto lost = [](const PgOutcome& o) {
    return o.error && o.error->sqlstate() == kUndefinedPreparedStatement;
  };
  if (lost(first) || lost(second)) {
    if (retried) throw *(lost(first) ? first.error : second.error);
    prepared_.erase(first_sql);
    prepared_.erase(second_sql);
    return execPreparedPair(first_sql, first_params, second_sql, second_params, true);
  }
  return {std::move(first), std::move(second)};
}

bool PgSession::sendPrepared(const std::string& sql, const PgParams& params) {
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) return false;
  std::vector<const char*> values = valuePointers(params);
  if (PQsendQueryPrepared(raw(), it->second.c_str(), static_cast<int>(values.size()), values.data(),
                          nullptr, nullptr, 0) != 1) {
    broken_ = true;
    throw PgError(common::pqMessageWithoutSeverity(PQerrorMessage(raw())), "");
  }
  in_flight_ = sql;
  return true;
}

bool PgSession::answered(std::chrono::microseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  // Polls before reading: right after sending, a read would only find nothing (a system call
  // per request for naught).
  for (;;) {
    if (PQisBusy(raw()) == 0) return true;
    const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    // ppoll takes the wait in nanoseconds: a millisecond poll would round 0.5 ms up to 1.
    pollfd socket{PQsocket(raw()), POLLIN, 0};
    const timespec timeout{static_cast<time_t>(left.count() / 1000000),
                           static_cast<long>(left.count() % 1000000) * 1000};
    if (ppoll(&socket, 1, &timeout, nullptr) < 0 && errno != EINTR) return true;
    if ((socket.revents & (POLLIN | POLLERR | POLLHUP)) != 0 && PQconsumeInput(raw()) != 1)
      return true;  // takeResult reports the failure
  }
}

PgResult PgSession::takeResult() {
  const std::string sql = std::move(in_flight_);
  in_flight_.clear();
  PgResult first(PQgetResult(raw()));
  while (PGresult* more = PQgetResult(raw())) PQclear(more);
  try {
    return checkResult(raw(), first.release());
  } catch (const PgError& e) {
    if (e.sqlstate() == kUndefinedPreparedStatement) prepared_.erase(sql);
    throw;
  }
}

void PgSession::discardAll() {
  prepared_.clear();
  execSimple("DISCARD ALL");
}

bool PgSession::reusable() const {
  return conn_ && !broken_ && PQstatus(raw()) == CONNECTION_OK &&
         PQtransactionStatus(raw()) == PQTRANS_IDLE;
}

}  // namespace berth::sqlconsole
