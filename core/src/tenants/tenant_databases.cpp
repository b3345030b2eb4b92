// Every call opens its own short-lived superuser connection: these are rare operations (a
// project created, deleted or measured), so a pool would only hold superuser sessions open on
// the tenants cluster for nothing. It also makes the class safe to use from any thread.
#include "tenants/tenant_databases.hpp"

#include <libpq-fe.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <berth/common/pg_connection.hpp>
#include <berth/common/sql_text.hpp>

#include <memory>
#include <string_view>
#include <vector>

namespace berth::core {
namespace {

struct ResultClear {
  void operator()(PGresult* result) const noexcept { PQclear(result); }
};
struct PqFree {
  void operator()(void* memory) const noexcept { PQfreemem(memory); }
};
struct ConninfoFree {
  void operator()(PQconninfoOption* options) const noexcept { PQconninfoFree(options); }
};
using Conn = common::PgConnection;
using Result = std::unique_ptr<PGresult, ResultClear>;
using PqText = std::unique_ptr<char, PqFree>;
using Conninfo = std::unique_ptr<PQconninfoOption, ConninfoFree>;

// A statement the server refused; the SQLSTATE lets a caller tell "gone" from "broken".
class PgError : public std::runtime_error {
 public:
  PgError(const std::string& message, std::string sqlstate)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const noexcept { return sqlstate_; }

 private:
  std::string sqlstate_;
};

constexpr size_t kPasswordLength = 32;
constexpr std::string_view kPasswordAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
// SQLSTATE undefined_database: a database dropped between the lookup and the measurement.
constexpr const char* kUndefinedDatabase = "3D000";

// Names are checked before they are quoted: quoting makes any text safe to splice, but this
// class must only ever create or drop project databases and roles, never "postgres" or the
// control plane's own.
bool isProjectName(std::string_view name) {
  if (name.size() < 3 || name.size() > 62 || name.substr(0, 2) != "p_") return false;
  for (char c : name.substr(2))
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

void requireProjectName(std::string_view name) {
  if (!isProjectName(name))
    throw std::invalid_argument("not a project database or role name: \"" + std::string(name) +
                                "\" (expected p_ and 1 to 60 of [a-z0-9])");
}

// database: when set, connects to that database instead of the one admin_url names.
Conn connectAdmin(const std::string& admin_url, const char* database = nullptr) {
  // libpq keeps the last value of a repeated keyword: the defaults come before admin_url (which
  // may override them) and the database after it.
  common::PgConnection::Keywords keywords = {{"application_name", "berth-tenants"},
                                             {"dbname", admin_url}};
  if (database != nullptr) keywords.emplace_back("dbname", database);
  Conn conn = common::PgConnection::connect(keywords, std::chrono::seconds(10));
  if (!conn.ok())
    throw std::runtime_error("could not connect to the tenants cluster (database.tenants_url): " +
                             conn.error());
  // NOTICEs ("does not exist, skipping") would otherwise go to berthd's stderr.
  conn.dropNotices();
  return conn;
}

Result exec(PGconn* conn, const std::string& sql, const std::vector<std::string>& params = {}) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& param : params) values.push_back(param.c_str());
  Result result(PQexecParams(conn, sql.c_str(), static_cast<int>(values.size()), nullptr,
                             values.data(), nullptr, nullptr, 0));
  if (!result) throw std::runtime_error(common::pqMessage(PQerrorMessage(conn)));
  ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    const char* primary = PQresultErrorField(result.get(), PG_DIAG_MESSAGE_PRIMARY);
    const char* sqlstate = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
    throw PgError(
        primary != nullptr ? primary : common::pqMessage(PQresultErrorMessage(result.get())),
        sqlstate != nullptr ? sqlstate : "");
  }
  return result;
}

std::string quoteLiteral(PGconn* conn, const std::string& text) {
  PqText quoted(PQescapeLiteral(conn, text.c_str(), text.size()));
  if (!quoted) throw std::runtime_error(common::pqMessage(PQerrorMessage(conn)));
  return quoted.get();
}

std::string randomPassword() {
  std::string password;
  password.reserve(kPasswordLength);
  unsigned char bytes[64];
  while (password.size() < kPasswordLength) {
    if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("no secure random source");
    for (unsigned char byte : bytes) {
      // 248 is 4 * 62: larger bytes are skipped so that every character is equally likely.
      if (byte < 248 && password.size() < kPasswordLength)
        password += kPasswordAlphabet[byte % kPasswordAlphabet.size()];
    }
  }
  OPENSSL_cleanse(bytes, sizeof bytes);
  return password;
}

// Sessions first, so that none is left holding temporary objects of the role elsewhere; a
// role that cannot log in any more cannot come back in between.
void dropObjects(PGconn* conn, const std::string& database, const std::string& role,
                 bool drop_database, bool drop_role) {
  const std::string role_ident = common::quotedIdentifier(role);
  if (drop_role &&
      PQntuples(exec(conn, "SELECT 1 FROM pg_roles WHERE rolname = $1", {role}).get()) > 0)
    exec(conn, "ALTER ROLE " + role_ident + " NOLOGIN");
  // With a timeout (PostgreSQL 14+) it waits for each session to end, so its temporary
  // objects are gone before DROP ROLE looks for what the role owns.
  exec(conn,
       "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity"
       " WHERE (datname = $1 OR usename = $2) AND pid <> pg_backend_pid()",
       {drop_database ? database : std::string(), drop_role ? role : std::string()});
  // FORCE (PostgreSQL 13+) also ends sessions that connected after the terminate above.
  if (drop_database)
    exec(conn, "DROP DATABASE IF EXISTS " + common::quotedIdentifier(database) + " WITH (FORCE)");
  if (drop_role) exec(conn, "DROP ROLE IF EXISTS " + role_ident);
}

// Percent-encodes everything but RFC 3986's unreserved characters.
std::string urlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

}  // namespace

TenantDatabases::TenantDatabases(std::string admin_url) : admin_url_(std::move(admin_url)) {}

TenantDatabase TenantDatabases::create(const std::string& project_id) {
  const std::string name = "p_" + project_id;
  requireProjectName(name);
  TenantDatabase made{name, name, randomPassword()};
  Conn admin = connectAdmin(admin_url_);
  // CREATE DATABASE cannot run inside a transaction, so the steps are undone by hand. Only what
  // this call made is dropped: a role or database that existed before (a second create of the
  // same id) is left alone.
  bool role_made = false;
  bool database_made = false;
  try {
    const std::string ident = common::quotedIdentifier(name);
    // Hashed here rather than by the server, so the plain password never appears in a
    // statement (or in the server's log), and SCRAM whatever password_encryption says.
    PqText verifier(
        PQencryptPasswordConn(admin.get(), made.password.c_str(), name.c_str(), "scram-sha-256"));
    if (!verifier) throw std::runtime_error(common::pqMessage(PQerrorMessage(admin.get())));
    exec(admin.get(), "CREATE ROLE " + ident +
                          " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
                          " CONNECTION LIMIT 50 PASSWORD " +
                          quoteLiteral(admin.get(), verifier.get()));
    role_made = true;
    // template0 rather than template1: as fast (both are a few MB copied with PostgreSQL 15's
    // WAL_LOG strategy, ~45 ms each), but always correct. template1 may carry an encoding other
    // than UTF8 (an external cluster initialised with locale C is SQL_ASCII, and ENCODING 'UTF8'
    // is refused then unless the template is template0), whatever an administrator added to it,
    // and a session connected to template1 makes CREATE DATABASE wait 5 s and fail; nobody can
    // connect to template0.
    exec(admin.get(),
         "CREATE DATABASE " + ident + " OWNER " + ident + " TEMPLATE template0 ENCODING 'UTF8'");
    database_made = true;
    // A database's default ACL lets PUBLIC connect, so any project's role could reach it.
    exec(admin.get(), "REVOKE ALL ON DATABASE " + ident + " FROM PUBLIC");
    exec(admin.get(), "GRANT CONNECT, TEMPORARY ON DATABASE " + ident + " TO " + ident);
    Conn inside = connectAdmin(admin_url_, name.c_str());
    exec(inside.get(), "ALTER SCHEMA public OWNER TO " + ident);
    exec(inside.get(), "REVOKE ALL ON SCHEMA public FROM PUBLIC");
  } catch (const std::exception& error) {
    try {
      // The connection may be what failed: undo on a new one.
      admin.reset();
      if (role_made || database_made) {
        Conn undo = connectAdmin(admin_url_);
        dropObjects(undo.get(), name, name, database_made, role_made);
      }
    } catch (const std::exception&) {
      // Best effort: the error worth reporting is the first one.
    }
    throw std::runtime_error("could not create the database of project " + project_id + ": " +
                             error.what());
  }
  return made;
}

void TenantDatabases::drop(const std::string& database, const std::string& role) {
  requireProjectName(database);
  requireProjectName(role);
  Conn admin = connectAdmin(admin_url_);
  try {
    dropObjects(admin.get(), database, role, true, true);
  } catch (const std::exception& error) {
    throw std::runtime_error("could not drop database " + database + " and role " + role + ": " +
                             error.what());
  }
}

void TenantDatabases::closeOtherDatabases() {
  Conn admin = connectAdmin(admin_url_);
  // Every database of the cluster that is not a project's: postgres, the control plane,
  // template1. Superusers and owners keep their access; PUBLIC (every project role) loses it.
  Result names = exec(admin.get(),
                      "SELECT datname FROM pg_database WHERE datallowconn "
                      "AND datname !~ '^p_[a-z0-9]{1,60}$'");
  for (int i = 0; i < PQntuples(names.get()); ++i) {
    std::string name = PQgetvalue(names.get(), i, 0);
    exec(admin.get(), "REVOKE CONNECT, TEMPORARY ON DATABASE " + common::quotedIdentifier(name) +
                          " FROM PUBLIC");
  }
}

int64_t TenantDatabases::sizeBytes(const std::string& database) {
  requireProjectName(database);
  Conn admin = connectAdmin(admin_url_);
  try {
    // By OID from pg_database, so a missing database is no row rather than an error.
    Result result =
        exec(admin.get(), "SELECT pg_database_size(oid) FROM pg_database WHERE datname = $1",
             {database});
    if (PQntuples(result.get()) == 0 || PQgetisnull(result.get(), 0, 0)) return 0;
    return std::stoll(PQgetvalue(result.get(), 0, 0));
  } catch (const PgError& error) {
    if (error.sqlstate() == kUndefinedDatabase) return 0;  // dropped meanwhile
    throw std::runtime_error("could not measure database " + database + ": " + error.what());
  }
}

std::string TenantDatabases::projectUrl(const TenantDatabase& db) const {
  requireProjectName(db.database);
  requireProjectName(db.role);
  char* parse_error = nullptr;
  Conninfo options(PQconninfoParse(admin_url_.c_str(), &parse_error));
  if (!options) {
    PqText owned(parse_error);
    throw std::invalid_argument(
        "the tenants cluster's URL (database.tenants_url) does not parse: " +
        (owned ? common::pqMessage(owned.get()) : std::string("out of memory")));
  }
  std::string host, hostaddr, port, sslmode;
  for (const PQconninfoOption* option = options.get(); option->keyword != nullptr; ++option) {
    if (option->val == nullptr) continue;
    const std::string_view keyword = option->keyword;
    if (keyword == "host") host = option->val;
    if (keyword == "hostaddr") hostaddr = option->val;
    if (keyword == "port") port = option->val;
    if (keyword == "sslmode") sslmode = option->val;
  }
  // An IPv6 address goes in brackets; a socket directory is percent-encoded, as libpq reads it.
  const bool ipv6 = host.find(':') != std::string::npos && host.find('/') == std::string::npos;
  std::string url = "postgresql://" + urlEncode(db.role) + ":" + urlEncode(db.password) + "@" +
                    (ipv6 ? "[" + host + "]" : urlEncode(host)) + (port.empty() ? "" : ":" + port) +
                    "/" + urlEncode(db.database);
  // The project connects the way the platform does: to the same address, with the same TLS.
  std::string query;
  if (!hostaddr.empty()) query += "&hostaddr=" + urlEncode(hostaddr);
  if (!sslmode.empty()) query += "&sslmode=" + urlEncode(sslmode);
  if (!query.empty()) url += "?" + query.substr(1);
  return url;
}

bool TenantDatabases::exists(const std::string& database, const std::string& role) {
  requireProjectName(database);
  requireProjectName(role);
  Conn admin = connectAdmin(admin_url_);
  Result result = exec(admin.get(),
                       "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)"
                       " AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $2)",
                       {database, role});
  return std::string_view(PQgetvalue(result.get(), 0, 0)) == "t";
}

}  // namespace berth::core
