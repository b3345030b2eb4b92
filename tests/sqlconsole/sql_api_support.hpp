// Helpers for the sqlconsole API tests (structure, SQL, import, export): a berthd with the
// projects and sqlconsole plugins shared by a suite, projects made over the API, and direct
// libpq access to a project's database as the project's own role (trust on the test cluster),
// which is how a test sees what the API did without going through it.
#pragma once
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "projects/api_support.hpp"
#include "support/berthd_suite.hpp"

namespace berth::testing::sqlconsole_api {

using namespace berth::testing::projects_api;

// A berthd with projects and sqlconsole; extra configuration per suite.
class SqlconsoleSuite : public BerthdSuite {
 protected:
  static void startServer(const std::string& extra_yaml = "") {
    BerthdOptions options;
    options.plugins = {"projects", "sqlconsole"};
    options.extra_yaml = extra_yaml;
    BerthdSuite::startServer(options);
  }
  // BerthdSuite's TearDownTestSuite stops it cleanly: its threads joined, no sanitizer report.
  static ApiClient api(const Account& a) { return server->api(a.token); }
};

struct TestProject {
  std::string name;  // <label>-<slug>
  std::string id;
  std::string role;  // p_<id>, also the database's name
  std::string url;   // libpq URL as that role
};

inline TestProject makeProject(const BerthdProcess& server, const ApiClient& api,
                               const std::string& label, const std::string& slug,
                               const std::string& team = "") {
  mustCreate(api, label, team);
  TestProject p;
  p.name = projectName(label, team.empty() ? slug : team);
  p.id = projectId(server, p.name);
  p.role = "p_" + p.id;
  p.url = "postgresql://" + p.role + "@127.0.0.1:" + std::to_string(sharedCluster().port()) + "/" +
          p.role;
  return p;
}

// ---- libpq, straight to a database ----------------------------------------------------------

struct ConnFinish {
  void operator()(PGconn* conn) const noexcept { PQfinish(conn); }
};
using Conn = std::unique_ptr<PGconn, ConnFinish>;

inline Conn connectTo(const std::string& url) {
  Conn conn(PQconnectdb(url.c_str()));
  if (PQstatus(conn.get()) != CONNECTION_OK)
    throw std::runtime_error("connect " + url + ": " + PQerrorMessage(conn.get()));
  return conn;
}

using Row = std::vector<std::optional<std::string>>;

// Every row of sql (text values, NULL as nullopt); throws with the database's message.
inline std::vector<Row> rowsOf(const std::string& url, const std::string& sql) {
  Conn conn = connectTo(url);
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(conn.get(), sql.c_str()), &PQclear);
  const ExecStatusType status = PQresultStatus(r.get());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK)
    throw std::runtime_error(sql.substr(0, 200) + ": " + PQresultErrorMessage(r.get()));
  std::vector<Row> rows;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    Row row;
    for (int j = 0; j < PQnfields(r.get()); ++j)
      row.push_back(PQgetisnull(r.get(), i, j)
                        ? std::nullopt
                        : std::optional<std::string>(PQgetvalue(r.get(), i, j)));
    rows.push_back(std::move(row));
  }
  return rows;
}

// The first value of the first row ("<null>" for NULL, "<none>" without rows).
inline std::string scalar(const std::string& url, const std::string& sql) {
  auto rows = rowsOf(url, sql);
  if (rows.empty() || rows[0].empty()) return "<none>";
  return rows[0][0].value_or("<null>");
}

// Every row of a table as text, in a stable order, for comparing two databases.
inline std::vector<std::string> tableRows(const std::string& url, const std::string& table) {
  std::vector<std::string> out;
  for (const auto& row : rowsOf(url, "SELECT t::text FROM " + table + " t ORDER BY 1"))
    out.push_back(row[0].value_or("<null>"));
  return out;
}

// ---- the API --------------------------------------------------------------------------------

inline HttpResult postSql(const ApiClient& api, const std::string& project,
                          const std::string& route, const std::string& sql) {
  return api.post("/projects/" + project + "/" + route, {{"sql", sql}});
}

// /batch that must succeed (throws with the answer otherwise).
inline nlohmann::json mustBatch(const ApiClient& api, const std::string& project,
                                const std::vector<std::string>& statements) {
  auto r = api.post("/projects/" + project + "/batch", {{"statements", statements}});
  if (r.status != 200)
    throw std::runtime_error("batch: " + std::to_string(r.status) + " " + r.body + r.error);
  return r.json();
}

inline HttpResult importScript(const ApiClient& api, const std::string& project,
                               const std::string& script) {
  return api.raw("POST", "/projects/" + project + "/import", script,
                 {"Content-Type: application/octet-stream"});
}

}  // namespace berth::testing::sqlconsole_api
