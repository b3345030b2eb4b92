// bench/rows: reading rows through berthd next to the same SELECTs straight on the database.
// A project's table of 100,000 rows (and 1,000 owners it refers to) is read two ways:
//   by id        GET .../tables/items/rows?id=eq.N             and  /_data/items?id=eq.N
//   a page       ?category=eq.C&order=price.desc&limit=50&select=id,name,price,owners(name)
// through the management API and through the browser data API on the project host (both
// through the nginx edge, keep-alive, several client threads), next to pgbench running the
// equivalent plain SELECTs as the project's role on the same cluster, with the same number of
// clients, in the same run: prepared (as berthd runs them) and with the extended protocol
// (parsed and planned each time). Goal (issue 4): >= 0.5x.
// The API answers carry more than the plain SELECT: the catalogue check and, on the rows
// route, `total` (a count over the filter).
// Usage: build/bench/bench_rows [client threads, default 8] [seconds per case, default 8]
//                               [cases: all (default), id, page, or parts: the statements
//                                a by-id read sends, each under pgbench alone]
#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <regex>
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

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

struct Outcome {
  double per_second = 0;
  long errors = 0;
};

// Requests per second over `seconds`, `threads` clients each on one keep-alive connection.
Outcome runHttp(const std::function<std::string(std::mt19937&)>& url,
                const std::vector<std::string>& headers, int threads, double seconds) {
  std::atomic<long> done{0}, errors{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int t = 0; t < threads; ++t) {
    clients.emplace_back([&, t] {
      std::mt19937 random(static_cast<unsigned>(t * 7919 + 1));
      CURL* curl = curl_easy_init();
      curl_slist* list = nullptr;
      for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
      std::string body;
      curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
      curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
      curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
      curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
      curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
      while (!stop.load()) {
        std::string target = url(random);
        body.clear();
        curl_easy_setopt(curl, CURLOPT_URL, target.c_str());
        long status = 0;
        if (curl_easy_perform(curl) == CURLE_OK)
          curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        if (status == 200) {
          done.fetch_add(1);
        } else if (errors.fetch_add(1) == 0) {
          std::fprintf(stderr, "first error: %ld %s: %s\n", status, target.c_str(), body.c_str());
        }
      }
      curl_slist_free_all(list);
      curl_easy_cleanup(curl);
    });
  }
  auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (auto& c : clients) c.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  return {static_cast<double>(done.load()) / elapsed, errors.load()};
}

HttpResult getWith(const std::string& url, const std::vector<std::string>& headers) {
  HttpRequestSpec spec;
  spec.url = url;
  spec.headers = headers;
  return send(spec);
}

// pgbench's "tps" (excluding connection time) for a script.
double runPgbench(const std::string& url, const std::string& script, int clients, double seconds,
                  const std::string& mode = "extended") {
  const std::string dir = makeTempDir("rowsbench");
  const std::string file = dir + "/script.sql";
  std::ofstream(file) << script;
  auto r = berth::core::runCommand(
      {"pgbench", "-n", "-M", mode, "-c", std::to_string(clients), "-j", std::to_string(clients),
       "-T", std::to_string(static_cast<int>(seconds)), "-f", file, url},
      {}, std::chrono::minutes(5));
  removeTree(dir);
  std::smatch m;
  static const std::regex tps(R"(tps = ([0-9.]+) \(without initial connection time\))");
  if (!r.status.ok() || !std::regex_search(r.output, m, tps)) {
    std::fprintf(stderr, "pgbench failed:\n%s\n", r.output.c_str());
    return 0;
  }
  return std::stod(m[1]);
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
          "ANALYZE owners", "ANALYZE items"})
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
    const std::string read_sql =
        "SELECT (SELECT count(*) FROM \"public\".\"items\" AS t0 WHERE (t0.\"id\" = :n)) AS total,"
        " coalesce(json_agg(_r.*), '[]') AS rows, count(*) AS returned FROM (SELECT t0.\"id\" AS"
        " \"id\", t0.\"name\" AS \"name\", t0.\"category\" AS \"category\", t0.\"price\" AS"
        " \"price\", t0.\"owner_id\" AS \"owner_id\" FROM \"public\".\"items\" AS t0 WHERE"
        " (t0.\"id\" = :n) LIMIT 50::bigint OFFSET 0::bigint) AS _r;\n";
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
          Part{"catalogue fingerprint", url, "prepared", fingerprint_sql},
          Part{"the same, scanning pg_class", url, "prepared", old_fingerprint_sql},
          Part{"SELECT 1", url, "prepared", "SELECT 1;\n"},
          Part{"projects find (control db)", control_url, "extended",
               "SELECT * FROM projects.projects WHERE name = '" + name +
                   "' AND status = 'ready';\n"}})
      std::printf("%-32s %8.0f tps\n", part.what,
                  runPgbench(part.url, part.script, threads, seconds, part.mode));
    return 0;
  }
  // The ceiling of the HTTP path itself: a route that touches no database.
  Outcome ceiling = runHttp([&](std::mt19937&) { return base + "/regions"; }, {}, threads, seconds);
  std::printf("%-26s  %8.0f req/s (%ld errors): the edge and berthd alone\n", "GET /regions",
              ceiling.per_second, ceiling.errors);
  struct Case {
    const char* what;
    std::function<std::string(std::mt19937&)> api_url, data_url;
    std::string pg_script;
  };
  for (const Case& c : {Case{"id=eq.N", byId(rows), byId(data), pg_by_id},
                        Case{"50-row page with an embed", page(rows), page(data), pg_page}}) {
    if (only != "all" && (only == "id") != (std::string(c.what) == "id=eq.N")) continue;
    Outcome via_api = runHttp(c.api_url, api_headers, threads, seconds);
    Outcome via_data = runHttp(c.data_url, data_headers, threads, seconds);
    // berthd prepares its statements (once per connection), so the fair baseline is pgbench
    // preparing them too; the extended-protocol figure (parse and plan every time) is shown
    // beside it.
    double extended = runPgbench(url, c.pg_script, threads, seconds, "extended");
    double prepared = runPgbench(url, c.pg_script, threads, seconds, "prepared");
    auto ratio = [](double ours, double theirs) { return theirs > 0 ? ours / theirs : 0; };
    // GET /regions does no database work at all: its ratio is the most any read could reach.
    std::printf(
        "%-26s  rows API %7.0f req/s (%ld errors)  /_data %7.0f req/s (%ld errors)\n"
        "%-26s  pgbench -M prepared %7.0f tps: ratio API %.2fx  /_data %.2fx  (/regions %.2fx)\n"
        "%-26s  pgbench -M extended %7.0f tps: ratio API %.2fx  /_data %.2fx  (/regions %.2fx)\n",
        c.what, via_api.per_second, via_api.errors, via_data.per_second, via_data.errors, "",
        prepared, ratio(via_api.per_second, prepared), ratio(via_data.per_second, prepared),
        ratio(ceiling.per_second, prepared), "", extended, ratio(via_api.per_second, extended),
        ratio(via_data.per_second, extended), ratio(ceiling.per_second, extended));
    if (via_api.errors + via_data.errors > 0) {
      const std::string log = server.output();
      std::fprintf(stderr, "berthd's last words:\n%s\n",
                   log.substr(log.size() > 4000 ? log.size() - 4000 : 0).c_str());
    }
  }
  curl_global_cleanup();
  return 0;
}
