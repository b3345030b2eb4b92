// Helpers shared by the projects plugin's API tests (tests/projects/api_*_test.cpp): accounts
// and teams made through berthd's admin commands, error texts, the fixture plugin's events and
// the PostgreSQL side (control-plane tables, project databases on the shared test cluster).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iterator>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "db/pool.hpp"
#include "support/berthd_process.hpp"
#include "support/berthd_suite.hpp"
#include "support/eventually.hpp"
#include "support/pg_cluster.hpp"

namespace berth::testing::projects_api {

// 64 hex characters: an AES-256 key for projects.secrets_key.
inline const std::string kSecretsKey =
    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

inline std::string secretsKeyYaml() {
  return "projects:\n  secrets_key: \"" + kSecretsKey + "\"\n";
}

using berth::testing::errorText;  // tests/support/http_client.hpp

inline std::string joined(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

// Runs an admin command (`berthd --config ... <args>`); throws with its output when refused.
inline void adminOk(const BerthdProcess& server, const std::vector<std::string>& args) {
  auto r = server.admin(args);
  if (!r.status.ok()) throw std::runtime_error("berthd " + joined(args) + ": " + r.output);
}

inline std::string tokenFor(const BerthdProcess& server, const std::string& email) {
  auto r = server.admin({"token", "create", "--email", email});
  if (!r.status.ok()) throw std::runtime_error("token create: " + r.output);
  std::string t = r.output;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  auto nl = t.rfind('\n');  // stderr may come first; the token is the last line
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

struct Account {
  std::string email, slug, token;
};

// An account with the given slug (4 to 12 of [a-z0-9]) and plan; its e-mail is
// <slug>@example.com, so distinct slugs give distinct accounts.
inline Account makeAccount(const BerthdProcess& server, const std::string& slug,
                           const std::string& plan = "pro") {
  Account a{slug + "@example.com", slug, ""};
  adminOk(server, {"account", "create", "--email", a.email, "--plan", plan, "--slug", slug});
  a.token = tokenFor(server, a.email);
  return a;
}

inline void makeTeam(const BerthdProcess& server, const std::string& slug,
                     const std::string& owner_email, const std::string& plan = "pro") {
  adminOk(server, {"team", "create", "--slug", slug, "--owner", owner_email, "--plan", plan});
}

inline void addToTeam(const BerthdProcess& server, const std::string& team,
                      const std::string& email, const std::string& role) {
  adminOk(server, {"team", "add", "--team", team, "--email", email, "--role", role});
}

inline std::string projectName(const std::string& label, const std::string& slug) {
  return label + "-" + slug;
}

// POST /projects; returns the reply (a test checks the status itself or uses mustCreate).
inline HttpResult createProject(const ApiClient& api, const std::string& name,
                                const std::string& team = "") {
  nlohmann::json body = {{"name", name}};
  if (!team.empty()) body["team"] = team;
  return api.post("/projects", body);
}

// POST /projects that must answer 201; returns the project (throws otherwise, which fails the
// test with the answer).
inline nlohmann::json mustCreate(const ApiClient& api, const std::string& name,
                                 const std::string& team = "") {
  auto r = createProject(api, name, team);
  if (r.status != 201)
    throw std::runtime_error("POST /projects " + name + (team.empty() ? "" : " team=" + team) +
                             ": " + std::to_string(r.status) + " " + r.body + r.error);
  return r.json();
}

// A berthd with the projects plugin and a secrets key, shared by every test of a suite (a suite
// of its own plugins and configuration calls startServer in its SetUpTestSuite). It is stopped
// without judging how berthd exited; HostileTenantSuite and others check that themselves.
class ProjectsServerSuite : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects"};
    options.extra_yaml = secretsKeyYaml();
    startServer(options);
  }
  static void TearDownTestSuite() { dropServer(); }
  static ApiClient api(const Account& a) { return server->api(a.token); }
};

// A suite's berthd and the account its tests act as (`owner`, made by startServer), for the
// suites whose tests each make projects of their own.
class OwnerSuite : public BerthdSuite {
 protected:
  static void startServer(BerthdOptions options, const std::string& owner_slug) {
    BerthdSuite::startServer(std::move(options));
    owner = std::make_unique<Account>(makeAccount(*server, owner_slug));
  }
  static void TearDownTestSuite() {
    stopServer();
    owner.reset();
  }
  static ApiClient api() { return server->api(owner->token); }
  // A new project of the owner's; its name.
  static std::string project(const std::string& label) {
    mustCreate(api(), label);
    return projectName(label, owner->slug);
  }
  static inline std::unique_ptr<Account> owner;
};

inline std::vector<std::string> listedNames(const ApiClient& api) {
  auto r = api.get("/projects");
  if (r.status != 200)
    throw std::runtime_error("GET /projects: " + std::to_string(r.status) + " " + r.body);
  std::vector<std::string> names;
  auto listed = r.json();  // must outlive the loop
  for (const auto& p : listed.at("projects")) names.push_back(p.at("name").get<std::string>());
  return names;
}

inline bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

inline int64_t nowSeconds() {
  return static_cast<int64_t>(std::time(nullptr));
}

// ---- the projecthooks fixture plugin ---------------------------------------------------------

// Events recorded by projecthooks whose payload mentions `project` (as a JSON string value).
inline std::vector<nlohmann::json> hookEvents(const BerthdProcess& server, const std::string& event,
                                              const std::string& project) {
  auto r = server.api().get("/projecthooks/events");
  if (r.status != 200)
    throw std::runtime_error("GET /projecthooks/events: " + std::to_string(r.status) + " " +
                             r.body);
  std::vector<nlohmann::json> out;
  std::string needle = "\"" + project + "\"";
  auto listed = r.json();  // must outlive the loop
  for (const auto& e : listed.at("events"))
    if (e.at("event") == event && e.at("payload").dump().find(needle) != std::string::npos)
      out.push_back(e);
  return out;
}

// ---- PostgreSQL ------------------------------------------------------------------------------

inline std::vector<std::string> column(core::Pool& db, const std::string& sql,
                                       const std::vector<core::Param>& params = {}) {
  auto r = db.exec(sql, params);
  std::vector<std::string> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(r.isNull(i, 0) ? "<null>" : r.value(i, 0));
  return out;
}

inline std::set<std::string> databasesOnCluster() {
  core::Pool db(sharedCluster().url("postgres"), 1, std::chrono::seconds(10));
  auto v = column(db, "SELECT datname FROM pg_database");
  return {v.begin(), v.end()};
}

inline std::set<std::string> rolesOnCluster() {
  core::Pool db(sharedCluster().url("postgres"), 1, std::chrono::seconds(10));
  auto v = column(db, "SELECT rolname FROM pg_roles");
  return {v.begin(), v.end()};
}

inline std::set<std::string> added(const std::set<std::string>& before,
                                   const std::set<std::string>& after) {
  std::set<std::string> out;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::inserter(out, out.end()));
  return out;
}

// Every row of a control-plane table as text (`SELECT t::text FROM <table> t`), so a test can
// look for a value without knowing the columns.
inline std::string tableText(const BerthdProcess& server, const std::string& table) {
  core::Pool db(server.databaseUrl(), 1, std::chrono::seconds(10));
  std::string out;
  for (const auto& row : column(db, "SELECT t::text FROM " + table + " t")) out += row + "\n";
  return out;
}

// The id of a project in the control-plane table projects.projects.
inline std::string projectId(const BerthdProcess& server, const std::string& name) {
  core::Pool db(server.databaseUrl(), 1, std::chrono::seconds(10));
  auto ids = column(db, "SELECT id::text FROM projects.projects WHERE name = $1", {name});
  if (ids.size() != 1)
    throw std::runtime_error("projects.projects has " + std::to_string(ids.size()) +
                             " rows named " + name);
  return ids[0];
}

// One poll for every API test (tests/support/eventually.hpp: every 100 ms, 20 s at most).
using berth::testing::eventually;

}  // namespace berth::testing::projects_api
