// Helpers for the rows and data API tests (rows_api_test.cpp, data_api_test.cpp): a berthd
// with the projects and sqlconsole plugins shared by a suite, a project's own database reached
// as its own role (so tables made here belong to that role, as ones made through the API
// would), and query strings with every special character percent-encoded.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "../projects/api_support.hpp"
#include "pg_session.hpp"
#include "support/berthd_suite.hpp"

namespace berth::testing::rows_api {

using projects_api::Account;

// Percent-encodes all but unreserved characters, so the server sees exactly `text`.
inline std::string enc(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

// "?k1=v1&k2=v2", each key and value encoded; "" for none.
inline std::string query(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [key, value] : params)
    out += (out.empty() ? "?" : "&") + enc(key) + "=" + enc(value);
  return out;
}

// A session on the project's own database as the project's own role (trust authentication on
// the shared test cluster).
inline sqlconsole::PgSession projectSession(const BerthdProcess& server, const std::string& name) {
  std::string id = projects_api::projectId(server, name);
  std::string role = "p_" + id;
  return sqlconsole::PgSession::connect(
      "postgresql://" + role + "@127.0.0.1:" + std::to_string(sharedCluster().port()) + "/" + role);
}

// One value of a query as text ("" for none), for checks on what the database holds.
inline std::string scalar(sqlconsole::PgSession& session, const std::string& sql) {
  sqlconsole::PgResult r = session.exec(sql);
  if (PQntuples(r.get()) == 0 || PQgetisnull(r.get(), 0, 0)) return "";
  return PQgetvalue(r.get(), 0, 0);
}

// The `id` of every row in a rows answer, in order.
inline std::vector<int> ids(const nlohmann::json& rows) {
  std::vector<int> out;
  for (const auto& row : rows) out.push_back(row.at("id").get<int>());
  return out;
}

// A berthd with projects and sqlconsole, shared by every test of a suite. Statements are
// stopped after one second so the timeout rule can be tested without waiting 15. A suite's
// TearDownTestSuite stops it with dropServer (how berthd exits is not judged here).
class SqlconsoleServerSuite : public BerthdSuite {
 protected:
  static void startServer(const std::string& extra_yaml = "") {
    BerthdOptions options;
    options.plugins = {"projects", "sqlconsole"};
    options.extra_yaml = projects_api::secretsKeyYaml() +
                         "sqlconsole:\n  statement_timeout_seconds: 1\n" + extra_yaml;
    BerthdSuite::startServer(options);
  }
  static ApiClient api(const Account& a) { return server->api(a.token); }
};

}  // namespace berth::testing::rows_api
