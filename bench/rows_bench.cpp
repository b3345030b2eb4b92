// bench/rows: reading rows through berthd next to the same SELECTs straight on the database.
// A project's table of 100,000 rows (and 1,000 owners it refers to), vacuumed after loading as
// autovacuum would have it in a steady state (pgbench -i vacuums its tables too), is read two
// ways:
//   by id        GET .../tables/items/rows?id=eq.N             and  /_data/items?id=eq.N
//   a page       ?category=eq.C&order=price.desc&limit=50&select=id,name,price,owners(name)
// through the management API and through the browser data API on the project host (both
// through the nginx edge, keep-alive, from wrk with a Lua script picking N), next to pgbench
// running the equivalent plain SELECTs as the project's role on the same cluster, with the same
// number of clients, in the same run: prepared (as berthd runs them) and with the extended protocol
// (parsed and planned each time). Goal: >= 0.5x.
// The API answers carry more than the plain SELECT: the catalogue check and, on the rows
// route, `total` (a count over the filter).
// Each line also shows the CPU each kind of process spent per request (berthd, nginx, postgres,
// and the client: wrk or pgbench), read from /proc around the run.
// Usage: [CORE_THREAD_WAIT_US=n] [BACKEND_THREADS=n] build/bench/bench_rows [clients (connections),
// default 8] [seconds per case, default 8]
//                               [cases: all (default), id, page, or parts: the statements
//                                a by-id read sends, each under pgbench alone]
#include <curl/curl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <thread>
#include <tuple>
#include <vector>

#include "db/pool.hpp"
#include "support/berthd_process.hpp"
#include "support/pg_cluster.hpp"
#include "util/process.hpp"

using namespace berth::testing;
using Clock = std::chrono::steady_clock;

namespace {

struct Outcome {
  double per_second = 0;
  long errors = 0;
  std::map<std::string, double> cpu_us;  // CPU per request (or transaction) by process name
};

// CPU time (clock ticks) used so far by every process, summed by name; "client" is what this
// process's ended children (wrk, pgbench) used.
std::map<std::string, long> cpuTicksByName() {
  std::map<std::string, long> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename();
    if (pid.empty() || !std::isdigit(static_cast<unsigned char>(pid[0]))) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    long ticks = 0;
    // utime, stime, and cutime, cstime: what its children took before they ended (pgbench's
    // connections end before the run is read).
    for (int i = 0; i < 15 && fields >> field; ++i)
      if (i >= 11 && i <= 14) ticks += std::stol(field);
    out[stat.substr(open + 1, close - open - 1)] += ticks;
  }
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  const auto ticks = [](const timeval& t) {
    return static_cast<long>((t.tv_sec + t.tv_usec / 1e6) *
                             static_cast<double>(sysconf(_SC_CLK_TCK)));
  };
  out["client"] = ticks(children.ru_utime) + ticks(children.ru_stime);
  return out;
}

// The CPU the benchmark's processes used while `load` ran, in microseconds per request.
std::map<std::string, double> cpuPerRequest(const std::function<double()>& load, double seconds) {
  const auto before = cpuTicksByName();
  const double requests = load() * seconds;  // load returns its rate
  // pgbench's connections end with it; their CPU reaches the postmaster's count once it has
  // reaped them, a moment later.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto after = cpuTicksByName();
  const double tick_us = 1e6 / static_cast<double>(sysconf(_SC_CLK_TCK));
  std::map<std::string, double> out;
  for (const char* name : {"berthd", "nginx", "postgres", "client"}) {
    const auto a = after.find(name);
    if (a == after.end() || requests <= 0) continue;
    const auto b = before.find(name);
    const long used = a->second - (b == before.end() ? 0 : b->second);
    if (used > 0) out[name] = static_cast<double>(used) * tick_us / requests;
  }
  return out;
}

std::string cpuText(const Outcome& outcome) {
  std::string out;
  char part[64];
  for (const auto& [name, us] : outcome.cpu_us) {
    std::snprintf(part, sizeof part, "%s%s %.1f", out.empty() ? "" : ", ", name.c_str(), us);
    out += part;
  }
  return out.empty() ? "" : "CPU us per request: " + out;
}

// GETs `base + path_prefix + N + path_suffix`, N random in 1..n, for `seconds` from
// `connections` keep-alive connections, with wrk (two threads; a Lua function makes each
// request), the HTTP counterpart of pgbench: a small C client that leaves the CPU to the server.
Outcome runHttp(const std::string& base, const std::string& path_prefix, int n,
                const std::string& path_suffix, const std::vector<std::string>& headers,
                int connections, double seconds) {
  const std::string dir = makeTempDir("rowsbench");
  const std::string script = dir + "/request.lua";
  auto lua = [](const std::string& text) { return nlohmann::json(text).dump(); };
  std::ofstream(script) << "math.randomseed(" << std::random_device{}() % 100000 << ")\n"
                        << "request = function()\n  return wrk.format(nil, " << lua(path_prefix)
                        << " .. math.random(1, " << n << ") .. " << lua(path_suffix) << ")\nend\n";
  std::vector<std::string> argv = {"wrk",
                                   "-t2",
                                   "-c" + std::to_string(connections),
                                   "-d" + std::to_string(static_cast<int>(seconds)) + "s",
                                   "-s",
                                   script};
  for (const auto& h : headers) {
    argv.push_back("-H");
    argv.push_back(h);
  }
  argv.push_back(base);
  Outcome outcome;
  berth::core::RunResult r;
  std::smatch m;
  static const std::regex rate(R"(Requests/sec:\s+([0-9.]+))");
  static const std::regex non2xx(R"(Non-2xx or 3xx responses: ([0-9]+))");
  static const std::regex socket(
      R"(Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+), timeout ([0-9]+))");
  outcome.cpu_us = cpuPerRequest(
      [&] {
        r = berth::core::runCommand(argv, {}, std::chrono::minutes(5));
        if (r.status.ok() && std::regex_search(r.output, m, rate))
          outcome.per_second = std::stod(m[1]);
        return outcome.per_second;
      },
      seconds);
  removeTree(dir);
  if (outcome.per_second == 0) {
    std::fprintf(stderr, "wrk failed:\n%s\n", r.output.c_str());
    outcome.errors = 1;
    return outcome;
  }
  if (std::regex_search(r.output, m, non2xx)) outcome.errors += std::stol(m[1]);
  if (std::regex_search(r.output, m, socket))
    for (int i = 1; i <= 4; ++i) outcome.errors += std::stol(m[i]);
  return outcome;
}

HttpResult getWith(const std::string& url, const std::vector<std::string>& headers) {
  HttpRequestSpec spec;
  spec.url = url;
  spec.headers = headers;
  return send(spec);
}

// pgbench's "tps" (excluding connection time) for a script, and the CPU it took.
Outcome runPgbench(const std::string& url, const std::string& script, int clients, double seconds,
                   const std::string& mode = "extended") {
  const std::string dir = makeTempDir("rowsbench");
  const std::string file = dir + "/script.sql";
  std::ofstream(file) << script;
  Outcome outcome;
  berth::core::RunResult r;
  std::smatch m;
  static const std::regex tps(R"(tps = ([0-9.]+) \(without initial connection time\))");
  outcome.cpu_us = cpuPerRequest(
      [&] {
        r = berth::core::runCommand({"pgbench", "-n", "-M", mode, "-c", std::to_string(clients),
                                     "-j", std::to_string(clients), "-T",
                                     std::to_string(static_cast<int>(seconds)), "-f", file, url},
                                    {}, std::chrono::minutes(5));
        if (r.status.ok() && std::regex_search(r.output, m, tps))
          outcome.per_second = std::stod(m[1]);
        return outcome.per_second;
      },
      seconds);
  removeTree(dir);
  if (outcome.per_second == 0) std::fprintf(stderr, "pgbench failed:\n%s\n", r.output.c_str());
  return outcome;
}

std::string must(const HttpResult& r, long status, const std::string& what) {
  if (r.status != status) {
    std::fprintf(stderr, "%s: %ld %s\n", what.c_str(), r.status, r.body.c_str());
    std::exit(1);
  }
  return r.body;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 8;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 8;
  const std::string only = argc > 3 ? argv[3] : "all";
  curl_global_init(CURL_GLOBAL_DEFAULT);

  BerthdOptions options;
  options.plugins = {"projects", "sqlconsole"};
  // As many kept connections as workers, so none is opened per request.
  options.extra_yaml = "sqlconsole:\n  workers: 8\n  idle_connections: 8\n";
  // CORE_THREAD_WAIT_US=n compares sqlconsole.core_thread_wait_us settings (0: workers only).
  // BACKEND_THREADS=n: the core's server threads (edge.backend_threads, 4 by default).
  if (const char* n = std::getenv("BACKEND_THREADS"))
    options.set.push_back("edge.backend_threads=" + std::string(n));
  if (const char* wait = std::getenv("CORE_THREAD_WAIT_US"))
    options.extra_yaml += "  core_thread_wait_us: " + std::string(wait) + "\n";
  BerthdProcess server(options);
  server.start();
  std::string token = server.createAccountWithToken("bench@example.com", "pro");
  ApiClient api = server.api(token);
  nlohmann::json project = nlohmann::json::parse(
      must(api.post("/projects", {{"name", "bench"}}), 201, "create project"));
  const std::string name = project["name"];
  berth::core::Pool control(server.databaseUrl(), 1, std::chrono::seconds(10));
  const std::string id =
      control.exec("SELECT id FROM projects.projects WHERE name = $1", {name}).value(0, 0);
  const std::string role = "p_" + id;
  const std::string url =
      "postgresql://" + role + "@127.0.0.1:" + std::to_string(sharedCluster().port()) + "/" + role;
  {
    berth::core::Pool db(url, 1, std::chrono::seconds(10));
    for (const char* sql :
         {"CREATE TABLE owners (id int PRIMARY KEY, name text NOT NULL)",
          "CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, category int NOT NULL,"
          " price numeric(10,2) NOT NULL, owner_id int REFERENCES owners (id))",
          "CREATE INDEX items_category ON items (category)",
          "INSERT INTO owners SELECT g, 'owner ' || g FROM generate_series(1, 1000) g",
          "INSERT INTO items (name, category, price, owner_id) SELECT 'item ' || g, 1 + g % 100,"
          " (g * 7919 % 100000) / 100.0, 1 + g % 1000 FROM generate_series(1, 100000) g",
          "VACUUM ANALYZE owners", "VACUUM ANALYZE items"})
      db.exec(sql);
  }
  const std::string key =
      nlohmann::json::parse(must(api.get("/projects/" + name + "/data-api"), 200, "settings"))
          .at("key");
  for (const char* table : {"items", "owners"})
    must(api.raw("PUT", "/projects/" + name + "/data-api/tables/" + table, R"({"read": true})",
                 {"Content-Type: application/json"}),
         200, "open table");

  const std::string base = server.baseUrl();
  const std::string rows = base + "/projects/" + name + "/tables/items/rows";
  const std::string data = base + "/_data/items";
  const std::vector<std::string> api_headers = {"Authorization: Bearer " + token};
  const std::vector<std::string> data_headers = {"Host: " + name + ".localhost", "apikey: " + key};
  auto byId = [](const std::string& prefix) {
    return
        [prefix](std::mt19937& r) { return prefix + "?id=eq." + std::to_string(1 + r() % 100000); };
  };
  auto page = [](const std::string& prefix) {
    return [prefix](std::mt19937& r) {
      return prefix + "?category=eq." + std::to_string(1 + r() % 100) +
             "&order=price.desc&limit=50&select=id,name,price,owners(name)";
    };
  };
  // A check that the answers are what is measured.
  std::mt19937 once(1);
  HttpResult sample;
  sample = getWith(page(rows)(once), api_headers);
  if (sample.status != 200) {
    std::fprintf(stderr, "sample rows page: %ld %s\n", sample.status, sample.body.c_str());
    return 1;
  }
  std::printf("sample rows page: %zu bytes, total %s\n", sample.body.size(),
              nlohmann::json::parse(sample.body).at("total").dump().c_str());

  const std::string pg_by_id = "\\set n random(1, 100000)\nSELECT * FROM items WHERE id = :n;\n";
  const std::string pg_page =
      "\\set c random(1, 100)\n"
      "SELECT i.id, i.name, i.price, (SELECT row_to_json(o) FROM (SELECT name FROM owners"
      " WHERE owners.id = i.owner_id) o) AS owners FROM items i WHERE i.category = :c"
      " ORDER BY i.price DESC LIMIT 50;\n";

  std::printf("bench/rows: %d client threads, %.0f s per case, 100,000 rows\n", threads, seconds);
  if (only == "parts") {
    // What the database does for one by-id read, statement by statement, as pgbench scripts.
    const std::string control_url = server.databaseUrl();
    struct Part {
      const char* what;
      std::string url, mode, script;
    };
    // The by-id read as the rows route sends it: the read, and statement_timeout put back
    // after it, in one statement (catalog_fingerprint.hpp withStatementTimeoutReset). The total
    // is counted only when the page cannot tell it (rest_sql_read.cpp): never for a by-id read.
    const std::string items_by_id = "FROM \"public\".\"items\" AS t0 WHERE (t0.\"id\" = :n)";
    const std::string page_of_rows =
        " coalesce(json_agg(_r.*), '[]') AS rows, count(*) AS "
        "returned FROM (SELECT t0.* " +
        items_by_id + " LIMIT 50::bigint OFFSET 0::bigint) AS _r";
    const std::string read_without_reset_sql =
        "SELECT CASE WHEN count(*) < 50::bigint AND (count(*) > 0 OR 0::bigint = 0) THEN "
        "0::bigint + count(*) ELSE (SELECT count(*) " +
        items_by_id + ") END AS total," + page_of_rows;
    const std::string read_sql =
        "SELECT _read.*, set_config('statement_timeout', '15000', "
        "false) FROM (" +
        read_without_reset_sql + ") AS _read;\n";
    const std::string read_counting_sql =
        "SELECT _read.*, set_config('statement_timeout', "
        "'15000', false) FROM (SELECT (SELECT count(*) " +
        items_by_id + ") AS total," + page_of_rows + ") AS _read;\n";
    const std::string read_rows_only_sql =
        "SELECT t0.* " + items_by_id + " LIMIT 50::bigint OFFSET 0::bigint;\n";
    // The fingerprint as catalog_fingerprint.cpp has it, with the names given as a literal (the
    // sub-select hides them from the planner either way).
    const std::string fingerprint_sql =
        "SELECT set_config('statement_timeout', '15000', false), string_agg(c.oid::text || '.' ||"
        " c.row_version::text || '.' || (SELECT count(*) || '.' || sum(a.xmin::text::bigint) FROM"
        " pg_attribute a WHERE a.attrelid = c.oid) || '.' || (SELECT count(*) || '.' ||"
        " coalesce(sum(k.xmin::text::bigint), 0) FROM pg_constraint k WHERE k.conrelid = c.oid AND"
        " k.contype IN ('p', 'f')), ',' ORDER BY c.oid) FROM (SELECT DISTINCT unnest((SELECT"
        " '{items}'::name[])::name[]) AS relname) AS wanted CROSS JOIN LATERAL (SELECT r.oid, "
        "r.xmin"
        " AS row_version FROM pg_class r WHERE r.relname = wanted.relname AND r.relnamespace ="
        " (SELECT n.oid FROM pg_namespace n WHERE n.nspname = 'public') AND r.relkind IN ('r', 'p',"
        " 'v', 'm') LIMIT 1) AS c;\n";
    const std::string old_fingerprint_sql =
        "SELECT set_config('statement_timeout', '15000', false), string_agg(c.oid::text || '.' ||"
        " c.xmin::text || '.' || (SELECT count(*) || '.' || sum(a.xmin::text::bigint) FROM"
        " pg_attribute a WHERE a.attrelid = c.oid) || '.' || (SELECT count(*) || '.' ||"
        " coalesce(sum(k.xmin::text::bigint), 0) FROM pg_constraint k WHERE k.conrelid = c.oid AND"
        " k.contype IN ('p', 'f')), ',' ORDER BY c.oid) FROM pg_class c WHERE c.relname = ANY"
        " ((SELECT '{items}'::name[])::name[]) AND c.relnamespace = (SELECT n.oid FROM pg_namespace"
        " n WHERE n.nspname = 'public') AND c.relkind IN ('r', 'p', 'v', 'm');\n";
    // Transactions each database commits per request (statistics flush within a second).
    auto commits = [&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      auto r = control.exec(
          "SELECT datname, xact_commit + xact_rollback FROM pg_stat_database WHERE datname IS "
          "NOT NULL ORDER BY datname");
      std::map<std::string, long> out;
      for (int i = 0; i < r.rows(); ++i) out[r.value(i, 0)] = std::stol(r.value(i, 1));
      return out;
    };
    for (const auto& [label, target, headers] : {std::tuple{"rows API", byId(rows), api_headers},
                                                 std::tuple{"/_data", byId(data), data_headers}}) {
      auto before = commits();
      constexpr int kRequests = 500;
      std::mt19937 r(7);
      for (int i = 0; i < kRequests; ++i) getWith(target(r), headers);
      auto after = commits();
      for (const auto& [db, n] : after)
        if (n - before[db] >= kRequests / 2)
          std::printf("%s: %s commits %.2f transactions per request\n", label, db.c_str(),
                      static_cast<double>(n - before[db]) / kRequests);
    }
    const std::string set = "\\set n random(1, 100000)\n";
    for (const Part& part :
         {Part{"plain SELECT by id", url, "extended", pg_by_id},
          Part{"the read as berthd builds it", url, "extended", set + read_sql},
          Part{"the same, prepared", url, "prepared", set + read_sql},
          Part{"the same without the reset", url, "prepared", set + read_without_reset_sql + ";\n"},
          Part{"the same, counting every time", url, "prepared", set + read_counting_sql},
          Part{"the rows alone (no json, no total)", url, "prepared", set + read_rows_only_sql},
          Part{"plain SELECT by id, prepared", url, "prepared", pg_by_id},
          Part{"catalogue fingerprint", url, "prepared", fingerprint_sql},
          Part{"the same, scanning pg_class", url, "prepared", old_fingerprint_sql},
          Part{"SELECT 1", url, "prepared", "SELECT 1;\n"},
          Part{"projects find (control db)", control_url, "extended",
               "SELECT * FROM projects.projects WHERE name = '" + name +
                   "' AND status = 'ready';\n"}})
      std::printf("%-32s %8.0f tps\n", part.what,
                  runPgbench(part.url, part.script, threads, seconds, part.mode).per_second);
    return 0;
  }
  // The ceiling of the HTTP path itself: a route that touches no database.
  const std::string regions_path = "/regions?n=";
  Outcome ceiling = runHttp(base, regions_path, 1, "", {}, threads, seconds);
  std::printf("%-26s  %8.0f req/s (%ld errors): the edge and berthd alone\n%-26s  %s\n",
              "GET /regions", ceiling.per_second, ceiling.errors, "", cpuText(ceiling).c_str());
  struct Case {
    const char* what;
    std::string query_prefix;  // ends where the random number goes
    int n;
    std::string query_suffix;
    std::string pg_script;
  };
  const std::string rows_path = "/projects/" + name + "/tables/items/rows";
  const std::string page_suffix = "&order=price.desc&limit=50&select=id,name,price,owners(name)";
  for (const Case& c :
       {Case{"id=eq.N", "?id=eq.", 100000, "", pg_by_id},
        Case{"50-row page with an embed", "?category=eq.", 100, page_suffix, pg_page}}) {
    if (only != "all" && (only == "id") != (std::string(c.what) == "id=eq.N")) continue;
    Outcome via_api = runHttp(base, rows_path + c.query_prefix, c.n, c.query_suffix, api_headers,
                              threads, seconds);
    Outcome via_data = runHttp(base, "/_data/items" + c.query_prefix, c.n, c.query_suffix,
                               data_headers, threads, seconds);
    // berthd prepares its statements (once per connection), so the strictest baseline is
    // pgbench preparing them too; the extended protocol (parse and plan every time) and
    // pgbench's default, the simple protocol (the values in the SQL text), are shown beside it.
    Outcome extended = runPgbench(url, c.pg_script, threads, seconds, "extended");
    Outcome prepared = runPgbench(url, c.pg_script, threads, seconds, "prepared");
    Outcome simple = runPgbench(url, c.pg_script, threads, seconds, "simple");  // its default
    auto ratio = [](const Outcome& ours, const Outcome& theirs) {
      return theirs.per_second > 0 ? ours.per_second / theirs.per_second : 0;
    };
    // GET /regions does no database work at all: its ratio is the most any read could reach.
    std::printf(
        "%-26s  rows API %7.0f req/s (%ld errors)  /_data %7.0f req/s (%ld errors)\n"
        "%-26s  pgbench -M prepared %7.0f tps: ratio API %.2fx  /_data %.2fx  (/regions %.2fx)\n"
        "%-26s  pgbench -M extended %7.0f tps: ratio API %.2fx  /_data %.2fx  (/regions %.2fx)\n"
        "%-26s  pgbench -M simple   %7.0f tps: ratio API %.2fx  /_data %.2fx  (/regions %.2fx)\n",
        c.what, via_api.per_second, via_api.errors, via_data.per_second, via_data.errors, "",
        prepared.per_second, ratio(via_api, prepared), ratio(via_data, prepared),
        ratio(ceiling, prepared), "", extended.per_second, ratio(via_api, extended),
        ratio(via_data, extended), ratio(ceiling, extended), "", simple.per_second,
        ratio(via_api, simple), ratio(via_data, simple), ratio(ceiling, simple));
    // A bound on any read through the edge: on a CPU-bound machine each read costs at least
    // the HTTP path (GET /regions' CPU) plus the database's work and a client's (pgbench
    // prepared's CPU), so it cannot beat the two in series, even if berthd's own database work
    // cost no more than pgbench's client does.
    const double series = ceiling.per_second > 0 && prepared.per_second > 0
                              ? 1.0 / (1.0 / ceiling.per_second + 1.0 / prepared.per_second)
                              : 0;
    std::printf(
        "%-26s  bound: /regions and pgbench -M prepared in series %7.0f req/s = %.2fx prepared,"
        " %.2fx extended, %.2fx simple\n",
        "", series, prepared.per_second > 0 ? series / prepared.per_second : 0,
        extended.per_second > 0 ? series / extended.per_second : 0,
        simple.per_second > 0 ? series / simple.per_second : 0);
    for (const auto& [label, outcome] :
         {std::pair{"rows API", &via_api}, std::pair{"/_data", &via_data},
          std::pair{"pgbench -M prepared", &prepared}, std::pair{"pgbench -M extended", &extended},
          std::pair{"pgbench -M simple", &simple}})
      std::printf("%-26s  %-20s %s\n", "", label, cpuText(*outcome).c_str());
    if (via_api.errors + via_data.errors > 0) {
      const std::string log = server.output();
      std::fprintf(stderr, "berthd's last words:\n%s\n",
                   log.substr(log.size() > 4000 ? log.size() - 4000 : 0).c_str());
    }
  }
  curl_global_cleanup();
  return 0;
}
