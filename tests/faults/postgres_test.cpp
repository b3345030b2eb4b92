// ctest-label: e2e
// The control plane's PostgreSQL (the program's own test cluster, which the project databases
// share) killed (SIGKILL to the postmaster and its backends, as a crash) or stopped (SIGSTOP to
// all of them, longer than the pool's 5 s connect timeout) at a random point of a project
// creation, a secret change and an import. The designed behaviour (core/src/db/pool.hpp: a
// broken connection answers 503 and is replaced) is checked: berthd survives, answers 503
// while its database is gone, and recovers by itself once PostgreSQL is back. Then old or new:
// a created project is listed only whole (its database answers) and a refused one can be made
// again; a secret holds the old or the new value (the new one once answered 201); an import is
// all of its rows or none. Every route answers after each round.
#include <gtest/gtest.h>

#include <filesystem>

#include <atomic>
#include <functional>
#include <thread>

#include "faults/fault_cases_support.hpp"
#include "projects/api_support.hpp"
#include "support/pg_cluster.hpp"
#include "support/process_pause.hpp"
#include "support/service_probe.hpp"

using namespace berth::testing;
using namespace berth::testing::faults;
using namespace berth::testing::projects_api;
using nlohmann::json;

namespace {

constexpr int kImportRows = 20000;

// `master` (when it runs) and its live children: a postmaster and its backends.
std::vector<pid_t> withChildren(pid_t master) {
  std::vector<pid_t> out;
  if (master <= 0) return out;
  out.push_back(master);
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry.path().filename().c_str()));
    if (pid <= 0) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text;
    std::getline(stat, text);
    const auto close = text.rfind(')');
    char state = 0;
    long parent = 0;
    if (close != std::string::npos &&
        std::sscanf(text.c_str() + close + 1, " %c %ld", &state, &parent) == 2 &&
        parent == master && state != 'Z')
      out.push_back(pid);
  }
  return out;
}

// The postmaster of the shared cluster and its children.
std::vector<pid_t> postgresProcesses() {
  std::ifstream pid_file(sharedCluster().dir() + "/data/postmaster.pid");
  pid_t master = 0;
  if (!(pid_file >> master)) return {};
  return withChildren(master);
}

std::string importScript(int round) {
  std::string sql =
      "CREATE TABLE imported_" + std::to_string(round) + " (id integer PRIMARY KEY, body text);\n";
  for (int i = 1; i <= kImportRows; ++i)
    sql += "INSERT INTO imported_" + std::to_string(round) + " VALUES (" + std::to_string(i) +
           ", 'row " + std::to_string(i) + " of the round's import');\n";
  return sql;
}

class PostgresFaults : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    BerthdOptions options;
    options.plugins = {"projects", "sqlconsole", "serviceprobe"};
    options.extra_yaml = secretsKeyYaml() + "  creation_burst: 1000\n";
    server = std::make_unique<BerthdProcess>(options);
    server->start();
    owner = makeAccount(*server, GetParam() == Mode::Kill ? "pgkill" : "pgstop");
    mustCreate(api(), "base");
    base = projectName("base", owner.slug);
  }
  void TearDown() override {
    if (server) stopCleanly(*server);
  }
  ApiClient api() const { return server->api(owner.token); }
  HttpResult post(const std::string& path, const std::string& body, const std::string& type,
                  long timeout_ms) const {
    HttpRequestSpec spec;
    spec.method = "POST";
    spec.url = server->baseUrl() + path;
    spec.body = body;
    spec.headers = {"Content-Type: " + type, "Authorization: Bearer " + owner.token};
    spec.timeout_ms = timeout_ms;
    return send(spec);
  }

  // Runs `operation` on a thread, strikes PostgreSQL after `kill_at`, brings it back, and
  // returns the operation's status. Checks berthd meanwhile: alive, 503 while PG is gone.
  long underFault(Mode mode, std::chrono::milliseconds kill_at,
                  const std::function<long()>& operation, std::string& wrong) {
    std::atomic<long> answered{-1};
    std::thread running([&] { answered = operation(); });
    std::this_thread::sleep_for(kill_at);
    if (mode == Mode::Kill) {
      sharedCluster().kill();
      // While its database is gone berthd answers, and 503.
      auto r = api().get("/projects");
      if (r.status != 503)
        wrong += "with PostgreSQL gone GET /projects answered " + std::to_string(r.status) + " " +
                 r.body + r.error + "\n";
      sharedCluster().start();
    } else {
      std::vector<std::unique_ptr<ProcessPause>> paused;
      for (pid_t pid : postgresProcesses()) {
        try {
          paused.push_back(std::make_unique<ProcessPause>(pid));
        } catch (const std::exception&) {
          // A backend that ended between the listing and its SIGSTOP.
        }
      }
      std::this_thread::sleep_for(stopDuration());
    }
    running.join();
    if (!server->running()) wrong += "berthd died with its database:\n" + server->output() + "\n";
    std::string failing = routesAnswer(*server, owner.token, {base});
    wrong += failing;
    return answered;
  }

  std::unique_ptr<BerthdProcess> server;
  Account owner;
  std::string base;
};

TEST_P(PostgresFaults, OldOrNewAfterPostgresComesBack) {
  const Mode mode = GetParam();
  FaultPlan plan("postgres", mode);
  FaultTally tally("postgres", mode);
  std::string secret_value = "s0";
  ASSERT_EQ(
      api().post("/projects/" + base + "/secrets", {{"name", "TOKEN"}, {"value", "s0"}}).status,
      201);
  for (int round = 1; round <= plan.rounds(); ++round) {
    const int which = (round - 1) % 3;  // creation, secret, import in turn
    const auto kill_at = plan.delay(which == 2 ? 1500 : 300);
    std::string wrong;
    if (which == 0) {
      const std::string label = "made" + std::to_string(round);
      const std::string name = projectName(label, owner.slug);
      long answered = underFault(
          mode, kill_at,
          [&] {
            return post("/projects", json{{"name", label}}.dump(), "application/json", 12000)
                .status;
          },
          wrong);
      bool listed = contains(listedNames(api()), name);
      if (answered == 201 && !listed) wrong += "a project answered 201 is not listed\n";
      if (listed) {
        auto q = api().post("/projects/" + name + "/query", {{"sql", "select 1 as one"}});
        if (q.status != 200) wrong += "a listed project's database does not answer: " + q.body;
      } else {
        auto again = createProject(api(), label);
        if (again.status != 201)
          wrong += "a project whose creation failed cannot be made again: " +
                   std::to_string(again.status) + " " + again.body + "\n";
      }
      wrong += "";
      if (!wrong.empty()) wrong = "creation (answered " + std::to_string(answered) + "): " + wrong;
    } else if (which == 1) {
      const std::string value = "s" + std::to_string(round);
      long answered = underFault(
          mode, kill_at,
          [&] {
            return post("/projects/" + base + "/secrets",
                        json{{"name", "TOKEN"}, {"value", value}}.dump(), "application/json", 12000)
                .status;
          },
          wrong);
      json vars = mustCallService(*server, "projects.directory.v1", "secrets",
                                  {{"name", base}, {"scope", "runtime"}})
                      .at("vars");
      const std::string stored = vars.value("TOKEN", "<absent>");
      if (stored != secret_value && stored != value) wrong += "the secret holds " + stored + "\n";
      if (answered == 201 && stored != value) wrong += "a secret answered 201 was lost\n";
      if (!wrong.empty()) wrong = "secret (answered " + std::to_string(answered) + "): " + wrong;
      secret_value = stored;
    } else {
      const std::string script = importScript(round);
      long answered = underFault(
          mode, kill_at,
          [&] {
            return post("/projects/" + base + "/import", script, "application/octet-stream", 30000)
                .status;
          },
          wrong);
      const std::string table = "imported_" + std::to_string(round);
      // A kept connection to the project's database that PostgreSQL's restart broke answers
      // one 503, by design (core/src/db/pool.hpp); the next request gets a fresh one.
      HttpResult q;
      eventually(
          [&] {
            q = api().post("/projects/" + base + "/query",
                           {{"sql", "select count(*)::int as n from " + table}});
            return q.status != 503;
          },
          std::chrono::seconds(15));
      int rows = q.status == 200 ? q.json()["rows"][0].value("n", -1) : 0;
      if (q.status != 200 && q.body.find("does not exist") == std::string::npos)
        wrong += "counting the imported rows: " + std::to_string(q.status) + " " + q.body + "\n";
      if (rows != 0 && rows != kImportRows)
        wrong += "the import kept " + std::to_string(rows) + " rows of " +
                 std::to_string(kImportRows) + "\n";
      if (answered == 200 && rows != kImportRows) wrong += "an import answered 200 was lost\n";
      if (!wrong.empty()) wrong = "import (answered " + std::to_string(answered) + "): " + wrong;
    }
    EXPECT_EQ(wrong, "") << "round " << round << " (" << modeName(mode) << " at " << kill_at.count()
                         << " ms)";
    recordPoint(
        tally, wrong,
        "round " + std::to_string(round) + " at " + std::to_string(kill_at.count()) + " ms");
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, PostgresFaults, ::testing::Values(Mode::Kill, Mode::Stop),
                         [](const auto& info) { return std::string(modeName(info.param)); });

}  // namespace

namespace {

// The embedded cluster's postmaster (<data_dir>/pg/data/postmaster.pid) and its children.
std::vector<pid_t> embeddedProcesses(const std::string& data_dir) {
  return withChildren(postmasterPid(embeddedPgData(data_dir)));
}

}  // namespace

// With the embedded database (database.url empty) berthd runs its own cluster: when that dies
// (its postmaster and backends killed at a random moment, as a crash) berthd starts it again
// by itself, and what was committed is there.
TEST(EmbeddedPostgresFaults, BerthdStartsItsClusterAgain) {
  FaultPlan plan("embedded-postgres", Mode::Kill);
  FaultTally tally("embedded-postgres", Mode::Kill);
  BerthdOptions options;
  options.plugins = {"projects"};
  options.embedded_database = true;
  options.extra_yaml = secretsKeyYaml() + "  creation_burst: 1000\n";
  BerthdProcess server(options);
  server.start();
  Account owner = makeAccount(server, "pgembed");
  ApiClient api = server.api(owner.token);
  for (int round = 1; round <= plan.rounds(); ++round) {
    const std::string label = "kept" + std::to_string(round);
    mustCreate(api, label);
    std::this_thread::sleep_for(plan.delay(500));
    for (pid_t pid : embeddedProcesses(server.dataDir())) ::kill(pid, SIGKILL);
    std::string wrong;
    HttpResult listed;
    if (!eventually(
            [&] {
              listed = api.get("/projects");
              return listed.status == 200;
            },
            std::chrono::seconds(40)))
      wrong += "berthd did not start its PostgreSQL again: GET /projects answers " +
               std::to_string(listed.status) + " " + listed.body + "\n";
    else if (!contains(listedNames(api), projectName(label, owner.slug)))
      wrong += "a project made before the crash is gone\n";
    if (!server.running()) wrong += "berthd died with its database\n";
    wrong += routesAnswer(server, owner.token, {projectName(label, owner.slug)});
    EXPECT_EQ(wrong, "") << "round " << round;
    recordPoint(tally, wrong, "round " + std::to_string(round));
  }
  stopCleanly(server);
}
