#include "pg_session.hpp"

namespace berth::sqlconsole {

namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.rfind("ERROR:  ", 0) == 0) text.erase(0, 8);
  return text;
}

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
  std::string timeout = std::to_string(connect_timeout.count());
  std::vector<const char*> keys = {"dbname", "connect_timeout", "application_name"};
  std::vector<const char*> values = {url.c_str(), timeout.c_str(), "berth-sqlconsole"};
  if (!server_options.empty()) {
    keys.push_back("options");
    values.push_back(server_options.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PgSession session(PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1));
  if (!session.conn_) throw PgError("out of memory connecting to the database", "");
  if (PQstatus(session.raw()) != CONNECTION_OK)
    throw PgError(trimmed(PQerrorMessage(session.raw())), "");
  // Notices (e.g. "table does not exist, skipping") are not errors; keep them off stderr.
  PQsetNoticeProcessor(
      session.raw(), [](void*, const char*) {}, nullptr);
  return session;
}

PgResult checkResult(PGconn* conn, PGresult* raw) {
  PgResult result(raw);
  if (!result) throw PgError(trimmed(PQerrorMessage(conn)), "");
  switch (PQresultStatus(result.get())) {
    case PGRES_FATAL_ERROR:
    case PGRES_BAD_RESPONSE:
    case PGRES_NONFATAL_ERROR: {
      std::string primary = field(result.get(), PG_DIAG_MESSAGE_PRIMARY);
      if (primary.empty()) primary = trimmed(PQresultErrorMessage(result.get()));
      if (primary.empty()) primary = trimmed(PQerrorMessage(conn));
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

std::string PgSession::quoteIdentifier(std::string_view name) const {
  char* quoted = PQescapeIdentifier(raw(), name.data(), name.size());
  if (quoted == nullptr) throw PgError(trimmed(PQerrorMessage(raw())), "");
  std::string out(quoted);
  PQfreemem(quoted);
  return out;
}

bool PgSession::reusable() const {
  return conn_ && PQstatus(raw()) == CONNECTION_OK && PQtransactionStatus(raw()) == PQTRANS_IDLE;
}

}  // namespace berth::sqlconsole
