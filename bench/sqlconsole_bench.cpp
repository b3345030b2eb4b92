// bench/sqlconsole: the SQL routes next to PostgreSQL's own tools on the same data, same run.
//  1. /query of a 500-row result: latency (one client) and requests per second (4 clients),
//     through the API with keep-alive, next to the same SELECT over libpq as the project's role.
//  2. /import of a ~50 MB pg_dump-style script, once as INSERT statements and once as a COPY
//     block: time next to `psql -1 -f` of the same file into an empty project; berthd's peak
//     RSS growth while importing.
//  3. /export of a ~100 MB database: postgres format next to pg_dump run directly (same
//     options), mysql and json next to `pg_dump --inserts`; berthd's peak RSS growth.
// Usage: build/bench/bench_sqlconsole [import MB, default 50] [export MB, default 100]
#include <curl/curl.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include "../tests/sqlconsole/sql_api_support.hpp"
#include "util/process.hpp"

using namespace berth::testing;
using namespace berth::testing::sqlconsole_api;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kPgDump = "/usr/lib/postgresql/15/bin/pg_dump";

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

long rssKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// Samples a process's RSS every 20 ms while alive; peak() is the highest seen.
class RssWatch {
 public:
  explicit RssWatch(pid_t pid) : pid_(pid), base_(rssKb(pid)) {
    thread_ = std::thread([this] {
      while (!stop_) {
        peak_ = std::max(peak_.load(), rssKb(pid_));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  ~RssWatch() { finish(); }
  long growthMb() {
    finish();
    return (peak_ - base_) / 1024;
  }

 private:
  void finish() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  pid_t pid_;
  long base_;
  std::atomic<long> peak_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

size_t discard(char*, size_t size, size_t n, void* counter) {
  *static_cast<size_t*>(counter) += size * n;
  return size * n;
}

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// One keep-alive connection to the API.
class Client {
 public:
  Client(std::string base, const std::string& token) : base_(std::move(base)) {
    curl_ = curl_easy_init();
    headers_ = curl_slist_append(headers_, ("Authorization: Bearer " + token).c_str());
    headers_ = curl_slist_append(headers_, "Expect:");
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers_);
    curl_easy_setopt(curl_, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT, 3600L);
  }
  ~Client() {
    curl_slist_free_all(headers_);
    curl_easy_cleanup(curl_);
  }
  // POST with a JSON body; returns the status and fills body.
  long postJson(const std::string& path, const std::string& json, std::string& body) {
    curl_slist* h = curl_slist_append(nullptr, "Content-Type: application/json");
    return post(path, json, h, body);
  }
  long postRaw(const std::string& path, const std::string& bytes, std::string& body) {
    curl_slist* h = curl_slist_append(nullptr, "Content-Type: application/octet-stream");
    return post(path, bytes, h, body);
  }
  // GET whose body is only counted.
  long getCounted(const std::string& path, size_t& bytes) {
    bytes = 0;
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers_);
    curl_easy_setopt(curl_, CURLOPT_URL, (base_ + path).c_str());
    curl_easy_setopt(curl_, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &bytes);
    long status = 0;
    if (curl_easy_perform(curl_) == CURLE_OK)
      curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    return status;
  }

 private:
  long post(const std::string& path, const std::string& payload, curl_slist* extra,
            std::string& body) {
    curl_slist* all = nullptr;
    for (curl_slist* h = headers_; h; h = h->next) all = curl_slist_append(all, h->data);
    for (curl_slist* h = extra; h; h = h->next) all = curl_slist_append(all, h->data);
    curl_slist_free_all(extra);
    body.clear();
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, all);
    curl_easy_setopt(curl_, CURLOPT_URL, (base_ + path).c_str());
    curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, payload.data());
    curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &body);
    long status = 0;
    if (curl_easy_perform(curl_) == CURLE_OK)
      curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(all);
    return status;
  }

  std::string base_;
  CURL* curl_ = nullptr;
  curl_slist* headers_ = nullptr;
};

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "bench failed: %s\n", what.c_str());
    std::exit(1);
  }
}

void runSql(const std::string& url, const std::string& sql) {
  Conn conn = connectTo(url);
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(conn.get(), sql.c_str()), &PQclear);
  const auto status = PQresultStatus(r.get());
  check(status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK,
        sql.substr(0, 80) + ": " + PQresultErrorMessage(r.get()));
}

// ---- 1. /query --------------------------------------------------------------------------------

const char* kQuery = "SELECT id, name, price, at, active, tags FROM items ORDER BY id";

void benchQuery(const BerthdProcess& server, const std::string& token, const TestProject& p) {
  runSql(p.url,
         "CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(10,2), at timestamptz,"
         " active boolean, tags jsonb);"
         "INSERT INTO items SELECT g, 'item number ' || g, g * 1.25,"
         " timestamptz '2024-01-01' + g * interval '1 minute', g % 2 = 0,"
         " jsonb_build_object('n', g, 'k', 'v') FROM generate_series(1, 500) g");
  const std::string body = nlohmann::json{{"sql", kQuery}}.dump();
  const std::string path = "/projects/" + p.name + "/query";
  const int rounds = 300;

  // One client, sequential.
  Client client(server.baseUrl(), token);
  std::string answer;
  for (int i = 0; i < 20; ++i) client.postJson(path, body, answer);  // warm up
  check(nlohmann::json::parse(answer)["rows"].size() == 500, "500 rows: " + answer.substr(0, 200));
  auto t0 = Clock::now();
  for (int i = 0; i < rounds; ++i) check(client.postJson(path, body, answer) == 200, answer);
  const double api_ms = seconds(Clock::now() - t0) * 1000 / rounds;

  Conn conn = connectTo(p.url);
  for (int i = 0; i < 20; ++i) PQclear(PQexec(conn.get(), kQuery));
  t0 = Clock::now();
  for (int i = 0; i < rounds; ++i) {
    PGresult* r = PQexec(conn.get(), kQuery);
    check(PQntuples(r) == 500, "libpq 500 rows");
    PQclear(r);
  }
  const double pq_ms = seconds(Clock::now() - t0) * 1000 / rounds;

  // Four clients at once.
  auto parallel = [&](auto one) {
    std::atomic<int> left{rounds * 4};
    std::vector<std::thread> threads;
    auto start = Clock::now();
    for (int t = 0; t < 4; ++t) threads.emplace_back([&] { one(left); });
    for (auto& t : threads) t.join();
    return rounds * 4 / seconds(Clock::now() - start);
  };
  const double api_rps = parallel([&](std::atomic<int>& left) {
    Client c(server.baseUrl(), token);
    std::string out;
    while (left-- > 0) c.postJson(path, body, out);
  });
  const double pq_rps = parallel([&](std::atomic<int>& left) {
    Conn c = connectTo(p.url);
    while (left-- > 0) PQclear(PQexec(c.get(), kQuery));
  });
  std::printf("1. /query, 500 rows x 6 columns (int, text, numeric, timestamptz, bool, jsonb)\n");
  std::printf("   one client:  API %.2f ms per query   libpq %.2f ms   ratio %.1fx\n", api_ms,
              pq_ms, api_ms / pq_ms);
  std::printf("   4 clients:   API %.0f queries/s     libpq %.0f/s     ratio %.2f\n\n", api_rps,
              pq_rps, api_rps / pq_rps);
}

// ---- 2. /import -------------------------------------------------------------------------------

std::string makeScript(size_t megabytes, bool copy) {
  std::string s =
      "--\n-- PostgreSQL database dump (made by bench_sqlconsole)\n--\n\n"
      "SET statement_timeout = 0;\nSET client_encoding = 'UTF8';\n"
      "SELECT pg_catalog.set_config('search_path', '', false);\n\n"
      "CREATE TABLE public.events (id bigint NOT NULL, kind text NOT NULL, payload text,"
      " amount numeric(10,2), at timestamp with time zone);\n\n";
  const size_t target = megabytes << 20;
  if (copy) s += "COPY public.events (id, kind, payload, amount, at) FROM stdin;\n";
  char line[256];
  for (long id = 1; s.size() < target; ++id) {
    const char* kind = id % 3 == 0 ? "click" : (id % 3 == 1 ? "view" : "it's a \"buy\"");
    if (copy) {
      std::snprintf(line, sizeof line,
                    "%ld\t%s\tpayload for event %ld; with a semicolon\t%ld.%02ld\t2024-01-01 "
                    "00:00:00+00\n",
                    id, kind, id, id % 1000, id % 100);
    } else {
      std::snprintf(line, sizeof line,
                    "INSERT INTO public.events VALUES (%ld, '%s', 'payload for event %ld; with a "
                    "semicolon', %ld.%02ld, '2024-01-01 00:00:00+00');\n",
                    id, id % 3 == 2 ? "it''s a \"buy\"" : kind, id, id % 1000, id % 100);
    }
    s += line;
  }
  if (copy) s += "\\.\n\n";
  s += "ALTER TABLE ONLY public.events ADD CONSTRAINT events_pkey PRIMARY KEY (id);\n";
  return s;
}

void benchImport(const BerthdProcess& server, const std::string& token, const ApiClient& api,
                 const std::string& dir, size_t megabytes) {
  std::printf("2. /import of a pg_dump-style script (~%zu MB) next to psql -1 -f\n", megabytes);
  for (bool copy : {false, true}) {
    const std::string script = makeScript(megabytes, copy);
    const std::string file = dir + (copy ? "/copy.sql" : "/inserts.sql");
    writeFile(file, script);
    const std::string suffix = copy ? "c" : "i";
    TestProject via_api = makeProject(server, api, "imp" + suffix, "benchsql");
    TestProject via_psql = makeProject(server, api, "psql" + suffix, "benchsql");

    Client client(server.baseUrl(), token);
    std::string answer;
    RssWatch rss(server.pid());
    auto t0 = Clock::now();
    const long status = client.postRaw("/projects/" + via_api.name + "/import", script, answer);
    const double api_s = seconds(Clock::now() - t0);
    const long growth = rss.growthMb();
    check(status == 200, "import: " + answer);
    // Progress lines in berthd's log (one every 10 s while an import runs).
    const std::string log = server.output();
    size_t progress = 0;
    for (size_t at = log.find("import running: "); at != std::string::npos;
         at = log.find("import running: ", at + 1))
      ++progress;

    t0 = Clock::now();
    auto psql = berth::core::runCommand(
        {"psql", "-X", "-q", "-1", "-v", "ON_ERROR_STOP=1", "-f", file, "-d", via_psql.url}, {},
        std::chrono::minutes(30));
    const double psql_s = seconds(Clock::now() - t0);
    check(psql.status.ok(), "psql: " + psql.output);
    check(scalar(via_api.url, "SELECT count(*) FROM events") ==
              scalar(via_psql.url, "SELECT count(*) FROM events"),
          "same rows");
    std::printf(
        "   %-7s %6.1f MB, %s: API %.2f s   psql -1 -f %.2f s   ratio %.2fx   berthd peak "
        "RSS +%ld MB   progress log lines so far: %zu\n",
        copy ? "COPY" : "INSERTs", static_cast<double>(script.size()) / (1 << 20),
        nlohmann::json::parse(answer)["ran"].dump().c_str(), api_s, psql_s, api_s / psql_s, growth,
        progress);
  }
  std::printf("   (ran = statements; the API time includes the upload through the edge)\n\n");
}

// ---- 3. /export -------------------------------------------------------------------------------

void benchExport(const BerthdProcess& server, const std::string& token, const TestProject& p,
                 const std::string& dir, size_t megabytes) {
  runSql(p.url,
         "CREATE TABLE big (id bigint PRIMARY KEY, kind text NOT NULL, payload text,"
         " amount numeric(12,2), at timestamptz, flags jsonb)");
  // About 210 bytes per row on disk, index included.
  const long rows = static_cast<long>(megabytes) * (1 << 20) / 210;
  runSql(p.url,
         "INSERT INTO big SELECT g, 'kind ' || (g % 7), repeat('payload ', 6) || g,"
         " g * 0.01, timestamptz '2024-01-01' + g * interval '1 second',"
         " jsonb_build_object('g', g) FROM generate_series(1, " +
             std::to_string(rows) + ") g; ANALYZE big");
  const std::string size =
      scalar(p.url, "SELECT pg_size_pretty(pg_database_size(current_database()))");
  std::printf("3. /export of a database of %s (%ld rows)\n", size.c_str(), rows);

  auto direct = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {kPgDump, "--format=plain", "--no-owner", "--no-privileges",
                                     "--file=" + dir + "/direct.sql"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(p.url);
    auto t0 = Clock::now();
    auto r = berth::core::runCommand(argv, {}, std::chrono::minutes(30));
    check(r.status.ok(), "pg_dump: " + r.output);
    return seconds(Clock::now() - t0);
  };
  const double pg_dump_s = direct({});
  const double pg_dump_gzip_s = direct({"--compress=6"});
  const double pg_dump_inserts_s = direct({"--inserts"});

  Client client(server.baseUrl(), token);
  for (const std::string format : {"postgres", "mysql", "json", "postgres&gzip=1"}) {
    size_t bytes = 0;
    RssWatch rss(server.pid());
    auto t0 = Clock::now();
    const long status =
        client.getCounted("/projects/" + p.name + "/export?format=" + format, bytes);
    const double api_s = seconds(Clock::now() - t0);
    const long growth = rss.growthMb();
    check(status == 200, "export " + format);
    const bool postgres = format.rfind("postgres", 0) == 0;
    const bool gzip = format.find("gzip") != std::string::npos;
    const double base = gzip ? pg_dump_gzip_s : (postgres ? pg_dump_s : pg_dump_inserts_s);
    std::printf(
        "   %-16s %7.1f MB in %.2f s   next to pg_dump%-12s %.2f s   ratio %.2fx   "
        "berthd peak RSS +%ld MB\n",
        format.c_str(), static_cast<double>(bytes) / (1 << 20), api_s,
        gzip ? " --compress=6" : (postgres ? "" : " --inserts"), base, api_s / base, growth);
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const size_t import_mb = argc > 1 ? std::stoul(argv[1]) : 50;
  const size_t export_mb = argc > 2 ? std::stoul(argv[2]) : 100;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  BerthdOptions options;
  options.plugins = {"projects", "sqlconsole"};
  options.extra_yaml = "projects:\n  creation_burst: 100\n";
  BerthdProcess server(options);
  server.start();
  Account account = makeAccount(server, "benchsql");
  ApiClient api = server.api(account.token);
  const std::string dir = makeTempDir("berth-bench-sql-");

  benchQuery(server, account.token, makeProject(server, api, "query", "benchsql"));
  benchImport(server, account.token, api, dir, import_mb);
  benchExport(server, account.token, makeProject(server, api, "export", "benchsql"), dir,
              export_mb);
  removeTree(dir);
  return 0;
}
