// ctest-label: api (starts a real berthd and runs the real berth binary)
// berth, the command-line client, against a real berthd with the projects, storage, runtime,
// sqlconsole, scheduler and templates plugins: signing in with a token on stdin, deploying a folder
// (a .berthignore'd file is not served) and seeing it live, its logs (and following them as
// NDJSON), a secret round trip, SQL and an export, a failing deploy's exit code and error, the
// API's refusals in its own words, --json that parses, and usage errors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "../projects/api_support.hpp"
#include "support/berthd_suite.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kBerth = std::string(BERTH_TEST_BINARY_DIR) + "/bin/berth";

struct CliResult {
  int code = -1;
  std::string out, err;
  json outJson() const { return json::parse(out, nullptr, false); }
};

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// Starts berth with exactly `env` as its environment (no BERTH_* of the test's own), stdin from
// `input`, stdout and stderr to files in `dir`.
pid_t spawnBerth(const std::vector<std::string>& args,
                 const std::map<std::string, std::string>& env, const std::string& input,
                 const std::string& dir, const std::string& cwd) {
  write(dir + "/stdin", input);
  pid_t pid = ::fork();
  if (pid == 0) {
    int in = ::open((dir + "/stdin").c_str(), O_RDONLY);
    int out = ::open((dir + "/stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open((dir + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::clearenv();
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(kBerth.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(kBerth.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

class ApiCli : public BerthdSuite {
 protected:
  static void SetUpTestSuite() {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "sqlconsole", "scheduler", "templates"};
    options.extra_yaml =
        "projects:\n  secrets_key: \"" + kSecretsKey + "\"\n  creation_burst: 100\n";
    startServer(options);
    owner = std::make_unique<Account>(makeAccount(*server, "cliown"));
  }
  static void TearDownTestSuite() {
    stopServer();
    owner.reset();
  }

  void SetUp() override { scratch_ = makeTempDir("berth-cli"); }
  void TearDown() override { removeTree(scratch_); }

  // The environment of a script that names the API and token (no config file needed).
  std::map<std::string, std::string> env(bool with_token = true) const {
    std::map<std::string, std::string> e = {{"PATH", "/usr/bin:/bin"},
                                            {"HOME", scratch_},
                                            {"XDG_CONFIG_HOME", scratch_ + "/config"},
                                            {"XDG_STATE_HOME", scratch_ + "/state"},
                                            {"NO_COLOR", "1"},
                                            {"BERTH_URL", server->baseUrl()}};
    if (with_token) e["BERTH_TOKEN"] = owner->token;
    return e;
  }

  CliResult run(const std::vector<std::string>& args, const std::string& input = "") const {
    return runWith(args, env(), input);
  }

  CliResult runWith(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& environment,
                    const std::string& input = "", const std::string& cwd = "") const {
    std::string dir = scratch_ + "/run";
    fs::create_directories(dir);
    pid_t pid = spawnBerth(args, environment, input, dir, cwd);
    CliResult r;
    int status = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        ADD_FAILURE() << "berth " << joined(args) << " did not finish";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = readFile(dir + "/stdout");
    r.err = readFile(dir + "/stderr");
    return r;
  }

  // A new project through the CLI; returns its name.
  std::string project(const std::string& label) {
    auto r = run({"projects", "create", label, "--json"});
    EXPECT_EQ(r.code, 0) << r.err;
    auto j = r.outJson();
    EXPECT_TRUE(j.is_object()) << r.out;
    return j.value("name", "");
  }

  std::string site(const std::string& index) {
    std::string dir = scratch_ + "/site";
    write(dir + "/index.html", index);
    write(dir + "/private.txt", "kept off the server");
    write(dir + "/notes/draft.md", "also kept off");
    write(dir + "/.berthignore", "private.txt\nnotes/\n");
    write(dir + "/.git/HEAD", "ref: refs/heads/main\n");
    return dir;
  }

  static inline std::unique_ptr<Account> owner;
  std::string scratch_;
};

}  // namespace

TEST_F(ApiCli, LoginReadsATokenFromStdinAndKeepsItPrivate) {
  auto e = env(false);
  auto r = runWith({"login", "--url", server->baseUrl()}, e, owner->token + "\n");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(owner->email), std::string::npos) << r.out;
  std::string config = scratch_ + "/config/berth/config.json";
  ASSERT_TRUE(fs::exists(config));
  EXPECT_EQ(fs::status(config).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  // Without BERTH_URL or BERTH_TOKEN, the config's context is used.
  e.erase("BERTH_URL");
  auto who = runWith({"whoami", "--json"}, e);
  ASSERT_EQ(who.code, 0) << who.err;
  EXPECT_EQ(who.outJson().value("email", ""), owner->email) << who.out;
  // A bad token is refused in the API's words, with the not-signed-in code.
  auto bad = runWith({"login", "--url", server->baseUrl()}, e, "bth_" + std::string(40, 'x'));
  EXPECT_EQ(bad.code, 3);
  EXPECT_NE(bad.err.find("that token is not valid, or has expired"), std::string::npos) << bad.err;
  ASSERT_EQ(runWith({"logout"}, e).code, 0);
  auto after = runWith({"whoami"}, e);
  EXPECT_EQ(after.code, 3);
  EXPECT_NE(after.err.find("berth login"), std::string::npos) << after.err;
}

// A console sign-in link works too: berth signs in with its code, makes a token of its own
// over that session, and revokes that token again on logout.
TEST_F(ApiCli, LoginWithASignInLinkMakesAndLaterRevokesItsOwnToken) {
  auto made = server->admin({"account", "login-link", "--email", owner->email});
  ASSERT_TRUE(made.status.ok()) << made.output;
  std::string link;
  std::istringstream out(made.output);
  for (std::string l; std::getline(out, l);)
    if (l.find("#code=") != std::string::npos) link = l;
  ASSERT_FALSE(link.empty()) << made.output;
  auto e = env(false);
  e.erase("BERTH_URL");  // the link names the API
  auto in = runWith({"login"}, e, link + "\n");
  ASSERT_EQ(in.code, 0) << in.err;
  auto who = runWith({"whoami", "--json"}, e);
  ASSERT_EQ(who.code, 0) << who.err;
  EXPECT_EQ(who.outJson().value("email", ""), owner->email);
  auto cli_tokens = [&] {
    std::vector<std::string> names;
    auto listed = server->api(owner->token).get("/tokens").json();
    for (const auto& t : listed["tokens"])
      if (t.value("name", "").rfind("berth CLI on ", 0) == 0) names.push_back(t["name"]);
    return names;
  };
  EXPECT_EQ(cli_tokens().size(), 1u);
  ASSERT_EQ(runWith({"logout"}, e).code, 0);
  EXPECT_TRUE(cli_tokens().empty());
  // The code worked once.
  auto again = runWith({"login"}, e, link + "\n");
  EXPECT_EQ(again.code, 3);
  EXPECT_NE(again.err.find("that sign-in link is not valid, was used already, or expired"),
            std::string::npos)
      << again.err;
}

TEST_F(ApiCli, DeployAFolderSeeItLiveAndReadItsLogs) {
  std::string name = project("site");
  ASSERT_FALSE(name.empty());
  std::string dir = site("<h1>hello from berth</h1>");
  auto r = run({"deploy", dir, "-p", name});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto project_now = server->api(owner->token).get("/projects/" + name).json();
  std::string url = project_now.value("url", "");
  ASSERT_FALSE(url.empty());
  EXPECT_NE(r.out.find("live at " + url), std::string::npos) << r.out;
  auto page = sendToHost(server->baseUrl(), name + ".localhost", "GET", "/");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.body, "<h1>hello from berth</h1>");
  for (const std::string left : {"/private.txt", "/notes/draft.md", "/.berthignore", "/.git/HEAD"})
    EXPECT_EQ(sendToHost(server->baseUrl(), name + ".localhost", "GET", left).status, 404) << left;

  // The releases, as JSON that parses.
  auto list = run({"deploys", "-p", name, "--json"});
  ASSERT_EQ(list.code, 0) << list.err;
  auto deploys = list.outJson();
  ASSERT_TRUE(deploys.is_object()) << list.out;
  ASSERT_EQ(deploys["deploys"].size(), 1u);
  std::string id = deploys["deploys"][0]["id"];
  EXPECT_EQ(deploys["deploys"][0]["status"], "live");

  // The platform's line about it, oldest first.
  std::string live_line = "release " + id + " is live";
  CliResult logs;
  ASSERT_TRUE(eventually([&] {
    logs = run({"logs", "-p", name, "--kind", "platform", "-n", "50"});
    return logs.out.find(live_line) != std::string::npos;
  })) << logs.out
      << logs.err;
  EXPECT_LT(logs.out.find("build of release " + id + " started"), logs.out.find(live_line));
  auto logs_json = run({"logs", "-p", name, "--json"});
  ASSERT_EQ(logs_json.code, 0);
  ASSERT_TRUE(logs_json.outJson().contains("logs")) << logs_json.out;

  // --follow prints new entries as NDJSON: a request made after it started shows up.
  std::string dir_follow = scratch_ + "/follow";
  fs::create_directories(dir_follow);
  pid_t follower =
      spawnBerth({"logs", "-p", name, "--follow", "--json", "--kind", "request", "-n", "1"}, env(),
                 "", dir_follow, "");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  sendToHost(server->baseUrl(), name + ".localhost", "GET", "/?followed=1");
  bool seen = eventually(
      [&] { return readFile(dir_follow + "/stdout").find("followed=1") != std::string::npos; },
      std::chrono::seconds(30));
  ::kill(follower, SIGTERM);
  ::waitpid(follower, nullptr, 0);
  std::string followed = readFile(dir_follow + "/stdout");
  ASSERT_TRUE(seen) << followed << readFile(dir_follow + "/stderr");
  std::istringstream lines(followed);
  std::string line;
  while (std::getline(lines, line)) {
    auto j = json::parse(line, nullptr, false);
    ASSERT_TRUE(j.is_object()) << line;
    EXPECT_EQ(j["kind"], "request") << line;
  }
}

TEST_F(ApiCli, AFailingDeployExitsFourWithTheBuildsError) {
  std::string name = project("broken");
  std::string dir = scratch_ + "/nothing";
  write(dir + "/notes.txt", "no index.html, no package.json");
  auto r = run({"deploy", dir, "-p", name});
  EXPECT_EQ(r.code, 4) << r.out << r.err;
  EXPECT_NE(r.err.find("failed: nothing to run: "), std::string::npos) << r.err;
}

TEST_F(ApiCli, SecretsRoundTripWithoutShowingValues) {
  std::string name = project("secrets");
  auto set = run({"secrets", "set", "API_KEY=s3cret-value", "OTHER=x=y", "-p", name});
  ASSERT_EQ(set.code, 0) << set.err;
  auto ls = run({"secrets", "ls", "-p", name});
  ASSERT_EQ(ls.code, 0) << ls.err;
  EXPECT_NE(ls.out.find("API_KEY"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find("OTHER"), std::string::npos) << ls.out;
  EXPECT_EQ(ls.out.find("s3cret"), std::string::npos) << ls.out;
  // Destructive without --yes and without a terminal: no prompt, a usage error.
  auto unconfirmed = run({"secrets", "unset", "API_KEY", "-p", name});
  EXPECT_EQ(unconfirmed.code, 2);
  EXPECT_NE(unconfirmed.err.find("--yes"), std::string::npos) << unconfirmed.err;
  ASSERT_EQ(run({"secrets", "unset", "API_KEY", "-p", name, "--yes"}).code, 0);
  auto after = run({"secrets", "ls", "-p", name, "--json"});
  ASSERT_EQ(after.code, 0);
  auto names = after.outJson()["secrets"];
  ASSERT_EQ(names.size(), 1u) << after.out;
  EXPECT_EQ(names[0]["name"], "OTHER");
  // A .env file, and a name the API refuses in its own words (exit 1).
  write(scratch_ + "/app.env", "# local\nexport FROM_FILE=\"a b\"\n");
  ASSERT_EQ(run({"secrets", "import", scratch_ + "/app.env", "-p", name}).code, 0);
  EXPECT_NE(run({"secrets", "ls", "-p", name}).out.find("FROM_FILE"), std::string::npos);
  auto refused = run({"secrets", "set", "lower=x", "-p", name});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("a secret name is capital letters, digits and underscores"),
            std::string::npos)
      << refused.err;
}

TEST_F(ApiCli, QueriesTheShellAndAnExport) {
  std::string name = project("data");
  ASSERT_EQ(
      run({"db", "query", "create table notes (id serial primary key, body text)", "-p", name})
          .code,
      0);
  // Two statements go to the batch route, in one transaction.
  auto two = run({"db", "query",
                  "insert into notes (body) values ('hello'); insert into notes (body) values "
                  "('world')",
                  "-p", name, "--json"});
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_EQ(two.outJson()["results"].size(), 2u) << two.out;
  auto q = run({"db", "query", "select body from notes order by id", "-p", name, "--json"});
  ASSERT_EQ(q.code, 0) << q.err;
  auto rows = q.outJson()["rows"];
  ASSERT_EQ(rows.size(), 2u) << q.out;
  EXPECT_EQ(rows[0]["body"], "hello");
  auto table = run({"db", "query", "select body from notes order by id", "-p", name});
  EXPECT_NE(table.out.find("world"), std::string::npos) << table.out;
  auto bad = run({"db", "query", "select * from nope", "-p", name});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("relation \"nope\" does not exist"), std::string::npos) << bad.err;

  // The shell without a terminal reads a script: \dt, \d and SQL.
  auto shell =
      run({"db", "shell", "-p", name}, "\\dt\n\\d notes\nselect count(*) as n\n  from notes;\n");
  ASSERT_EQ(shell.code, 0) << shell.err;
  EXPECT_NE(shell.out.find("notes"), std::string::npos) << shell.out;
  EXPECT_NE(shell.out.find("primary key"), std::string::npos) << shell.out;
  EXPECT_NE(shell.out.find("\n2\n"), std::string::npos) << shell.out;

  std::string sql_file = scratch_ + "/dump.sql";
  auto exported = run({"db", "export", "-o", sql_file, "-p", name});
  ASSERT_EQ(exported.code, 0) << exported.err;
  std::string dump = readFile(sql_file);
  EXPECT_NE(dump.find("CREATE TABLE public.notes"), std::string::npos) << dump.substr(0, 500);
  EXPECT_NE(dump.find("hello"), std::string::npos);
  auto as_json = run({"db", "export", "--format", "json", "-o", "-", "-p", name});
  ASSERT_EQ(as_json.code, 0) << as_json.err;
  EXPECT_EQ(json::parse(as_json.out)["tables"]["notes"].size(), 2u);
  auto refused = run({"db", "export", "--format", "xml", "-o", scratch_ + "/x", "-p", name});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("unknown format xml"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(scratch_ + "/x"));
}

TEST_F(ApiCli, TheApiEscapeHatchAndUsageErrors) {
  auto me = run({"api", "GET", "/me", "--json"});
  ASSERT_EQ(me.code, 0) << me.err;
  EXPECT_EQ(me.outJson().value("email", ""), owner->email);
  auto missing = run({"api", "get", "/projects/nope-cliown"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("no project called nope-cliown"), std::string::npos) << missing.err;
  auto made = run({"api", "POST", "/projects", "-d", "{\"name\":\"viaapi\"}", "--json"});
  ASSERT_EQ(made.code, 0) << made.err;
  EXPECT_EQ(made.outJson().value("name", ""), "viaapi-cliown");

  EXPECT_EQ(run({"deploy", "--kind", "request"}).code, 2);
  EXPECT_EQ(run({"no-such-command"}).code, 2);
  EXPECT_EQ(run({"logs", "-n"}).code, 2);
  EXPECT_EQ(run({"secrets", "set", "NOEQUALS", "-p", "x"}).code, 2);
  EXPECT_EQ(run({"api", "GET", "me"}).code, 2);
  auto no_project = run({"secrets", "ls"});
  EXPECT_EQ(no_project.code, 2);
  EXPECT_NE(no_project.err.find("berth link"), std::string::npos) << no_project.err;
  // Not signed in (no token anywhere): exit 3; an unreachable API: exit 5.
  EXPECT_EQ(runWith({"projects", "ls"}, env(false)).code, 3);
  auto offline = env();
  offline["BERTH_URL"] = "http://127.0.0.1:1";
  EXPECT_EQ(runWith({"projects", "ls"}, offline).code, 5);
}

TEST_F(ApiCli, LinkWritesTheFoldersProject) {
  std::string name = project("linked");
  std::string app = scratch_ + "/app";
  fs::create_directories(app + "/src");
  auto r = runWith({"link", name}, env(), "", app);
  ASSERT_EQ(r.code, 0) << r.err;
  auto link = json::parse(readFile(app + "/.berth/project.json"));
  EXPECT_EQ(link["project"], name);
  // From a folder below, commands find the project without -p.
  auto info = runWith({"projects", "info", "--json"}, env(), "", app + "/src");
  ASSERT_EQ(info.code, 0) << info.err;
  EXPECT_EQ(info.outJson().value("name", ""), name);
}

// The other groups reach their routes: regions, templates, tokens, projects set/info/rm,
// schedules (ls shows the next run), stored files, domains, the data API's settings, promote.
TEST_F(ApiCli, TheOtherGroupsReachTheirRoutes) {
  auto regions = run({"regions", "--json"});
  ASSERT_EQ(regions.code, 0) << regions.err;
  EXPECT_EQ(regions.outJson().value("default", ""), "us-central");
  EXPECT_EQ(run({"templates", "ls", "--json"}).code, 0);

  auto token = run({"tokens", "create", "ci-cli", "--expires-in-days", "1"});
  ASSERT_EQ(token.code, 0) << token.err;
  EXPECT_EQ(token.out.rfind("bth_", 0), 0u) << token.out;
  auto tokens = run({"tokens", "ls", "--json"}).outJson();
  std::string token_id;
  for (const auto& t : tokens["tokens"])
    if (t["name"] == "ci-cli") token_id = t["id"];
  ASSERT_FALSE(token_id.empty()) << tokens.dump();
  ASSERT_EQ(run({"tokens", "revoke", token_id, "--yes"}).code, 0);

  std::string name = project("groups");
  auto set = run({"projects", "set", name, "region=eu-west", "cache_ttl=30", "--json"});
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_EQ(set.outJson().value("region", ""), "eu-west");
  EXPECT_EQ(run({"projects", "set", name, "cache_ttl=soon"}).code, 2);
  auto info = run({"projects", "info", name});
  EXPECT_NE(info.out.find("eu-west"), std::string::npos) << info.out;

  auto cron = run({"cron", "add", "nightly", "*/15 * * * *", "/tasks/sweep", "-p", name, "--json"});
  ASSERT_EQ(cron.code, 0) << cron.err;
  std::string sid = cron.outJson().value("id", "");
  auto crons = run({"cron", "ls", "-p", name, "--json"}).outJson();
  ASSERT_EQ(crons["schedules"].size(), 1u);
  EXPECT_TRUE(crons["schedules"][0]["next_run_at"].is_number());
  auto table = run({"cron", "ls", "-p", name});
  EXPECT_NE(table.out.find("NEXT RUN"), std::string::npos) << table.out;
  ASSERT_EQ(run({"cron", "pause", sid, "-p", name}).code, 0);
  EXPECT_NE(run({"cron", "ls", "-p", name}).out.find("paused"), std::string::npos);
  ASSERT_EQ(run({"cron", "runs", sid, "-p", name, "--json"}).code, 0);
  ASSERT_EQ(run({"cron", "rm", sid, "-p", name, "--yes"}).code, 0);

  write(scratch_ + "/logo.txt", "a stored file");
  auto put = run({"files", "put", scratch_ + "/logo.txt", "img/logo one.txt", "-p", name});
  ASSERT_EQ(put.code, 0) << put.err;
  auto files = run({"files", "ls", "-p", name, "--json"}).outJson();
  ASSERT_EQ(files["files"].size(), 1u);
  EXPECT_EQ(files["files"][0]["path"], "img/logo one.txt");
  ASSERT_EQ(run({"files", "rm", "img/logo one.txt", "-p", name, "--yes"}).code, 0);
  EXPECT_TRUE(run({"files", "ls", "-p", name, "--json"}).outJson()["files"].empty());

  auto domain = run({"domains", "add", "www.cli-example.com", "-p", name});
  ASSERT_EQ(domain.code, 0) << domain.err;
  EXPECT_NE(domain.out.find("berth-verify="), std::string::npos) << domain.out;
  auto verify = run({"domains", "verify", "www.cli-example.com", "-p", name});
  EXPECT_EQ(verify.code, 1) << verify.out;  // no TXT record anywhere: the API says so
  ASSERT_EQ(run({"domains", "rm", "www.cli-example.com", "-p", name, "--yes"}).code, 0);

  ASSERT_EQ(run({"db", "query", "create table pins (id int)", "-p", name}).code, 0);
  auto grant = run({"data-api", "grant", "pins", "read", "create", "-p", name, "--json"});
  ASSERT_EQ(grant.code, 0) << grant.err;
  EXPECT_EQ(grant.outJson()["create"], true);
  ASSERT_EQ(run({"data-api", "revoke", "pins", "-p", name}).code, 0);
  auto show = run({"data-api", "show", "-p", name, "--json"}).outJson();
  EXPECT_EQ(show["tables"]["pins"]["read"], false) << show.dump();
  std::string old_key = show.value("key", "");
  auto rotated = run({"data-api", "rotate-key", "-p", name, "--yes"});
  ASSERT_EQ(rotated.code, 0) << rotated.err;
  EXPECT_EQ(rotated.out.rfind("bpk_", 0), 0u);
  EXPECT_EQ(rotated.out.find(old_key), std::string::npos);

  std::string dir = site("one");
  ASSERT_EQ(run({"deploy", dir, "-p", name, "--detach"}).code, 0);
  std::string first;
  ASSERT_TRUE(eventually(
      [&] {
        auto d = run({"deploys", "-p", name, "--json"}).outJson();
        if (d["deploys"].empty() || d["deploys"][0]["status"] != "live") return false;
        first = d["deploys"][0]["id"];
        return true;
      },
      std::chrono::seconds(60)));
  ASSERT_EQ(run({"deploy", site("two"), "-p", name}).code, 0);
  ASSERT_EQ(run({"promote", first, "-p", name}).code, 0);
  EXPECT_EQ(sendToHost(server->baseUrl(), name + ".localhost", "GET", "/").body, "one");

  EXPECT_EQ(run({"projects", "rm", name}).code, 2);  // no --yes, no terminal
  ASSERT_EQ(run({"projects", "rm", name, "--yes"}).code, 0);
  EXPECT_EQ(run({"projects", "info", name}).code, 1);
}
