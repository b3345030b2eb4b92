// ctest-label: api (starts a real berthd)
// GET /projects/{name}/export over HTTP against a real berthd: the postgres export loads with psql
// into an empty database of the test cluster and gives the same rows; the mysql export loads
// into a real MariaDB 10.11 started here; the json export is {"tables": {...}}; an export
// imports into a second project with the same rows; formats, gzip and headers as
// docs/openapi.yaml says (GET /projects/{name}/export).
#include <zlib.h>

#include <regex>

#include "export_files.hpp"
#include "export_mariadb.hpp"
#include "sql_api_support.hpp"
#include "util/process.hpp"

using namespace berth::testing;
using namespace berth::testing::sqlconsole_api;
using nlohmann::json;

namespace {

const std::vector<std::string> kShop = {
    "CREATE TABLE customers (id serial PRIMARY KEY, name text NOT NULL UNIQUE,"
    " email varchar(120), vip boolean DEFAULT false, balance numeric(12,2) DEFAULT 0,"
    " rating float8, joined date, seen timestamptz, note text, photo bytea, prefs jsonb,"
    " tags text[], code uuid)",
    "CREATE TABLE orders (id bigserial PRIMARY KEY,"
    " customer_id int NOT NULL REFERENCES customers (id) ON DELETE CASCADE,"
    " total numeric(10,2) NOT NULL, placed timestamp DEFAULT now(),"
    " status varchar(20) DEFAULT 'new')",
    "CREATE INDEX orders_placed ON orders (placed)",
    "CREATE VIEW big_orders AS SELECT id, total FROM orders WHERE total > 100",
    "CREATE TABLE empty_one (x int)",
    "INSERT INTO customers (name, email, vip, balance, rating, joined, seen, note, photo, prefs,"
    " tags, code) VALUES"
    " ('Ann O''Neil', 'ann@example.com', true, 1234.5, 4.25, '2020-02-29',"
    "  '2024-05-01 12:30:00.123456+02', E'line one\\nline \"two\"\\ttab \\\\ back', '\\x00ff10',"
    "  '{\"theme\": \"dark\", \"n\": [1, 2]}', ARRAY['a', 'b,c'], "
    "'00000000-0000-0000-0000-00000000000a'),"
    " ('Zoë ✓ 😀', NULL, false, -0.01, 'NaN', NULL, NULL, E'ctrl-z \\x1a here', NULL, NULL, NULL,"
    "  NULL),"
    " (E'back\\\\slash', 'b@example.com', NULL, NULL, NULL, NULL, NULL, '', '\\x', '[]', '{}', "
    "NULL)",
    "INSERT INTO orders (customer_id, total, placed, status)"
    " SELECT 1 + g % 3, g * 0.75, timestamp '2024-01-01' + g * interval '1 hour', 'st' || (g % 4)"
    " FROM generate_series(1, 1000) g",
};

class ExportApi : public SqlconsoleSuite {
 protected:
  static void SetUpTestSuite() {
    startServer();
    owner = new Account(makeAccount(*server, "expowner"));
    shop = new TestProject(makeProject(*server, client(), "shop", "expowner"));
    mustBatch(client(), shop->name, kShop);
    dir = new std::string(makeTempDir("berth-export-"));
  }
  static void TearDownTestSuite() {
    removeTree(*dir);
    delete dir;
    delete shop;
    delete owner;
    SqlconsoleSuite::TearDownTestSuite();
  }
  static ApiClient client() { return server->api(owner->token); }
  static HttpResult exportAs(const std::string& query) {
    return client().get("/projects/" + shop->name + "/export" + query);
  }
  static HttpResult mustExport(const std::string& query) {
    auto r = exportAs(query);
    if (r.status != 200) {
      const std::string log = server->output();
      throw std::runtime_error("export" + query + ": " + r.body + r.error + "\nberthd says: " +
                               log.substr(log.size() > 3000 ? log.size() - 3000 : 0));
    }
    return r;
  }
  static inline Account* owner = nullptr;
  static inline TestProject* shop = nullptr;
  static inline std::string* dir = nullptr;
};

std::string gunzip(const std::string& compressed) {
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw std::runtime_error("inflateInit2");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  char buffer[65536];
  int result = Z_OK;
  while (result == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    result = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
  }
  inflateEnd(&stream);
  if (result != Z_STREAM_END) throw std::runtime_error("not a whole gzip stream");
  return out;
}

void expectAttachment(const HttpResult& r, const std::string& project, const std::string& ending,
                      const std::string& content_type) {
  EXPECT_EQ(r.header("content-type"), content_type);
  const std::regex disposition("attachment; filename=" + project + R"(-\d{8}-\d{6})" +
                               std::regex_replace(ending, std::regex(R"([.])"), R"(\.)"));
  EXPECT_TRUE(std::regex_match(r.header("content-disposition"), disposition))
      << r.header("content-disposition");
}

}  // namespace

TEST_F(ExportApi, PostgresExportLoadsWithPsqlIntoAnEmptyDatabaseWithTheSameRows) {
  auto r = mustExport("");
  expectAttachment(r, shop->name, ".sql", "application/sql");
  EXPECT_EQ(r.body.rfind("--\n-- PostgreSQL database dump", 0), 0u) << r.body.substr(0, 100);
  const std::string file = *dir + "/shop.sql";
  writeFile(file, r.body);
  const std::string target = sharedCluster().createDatabase("export_load");
  auto loaded = berth::core::runCommand(
      {"psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", target, "-f", file});
  ASSERT_TRUE(loaded.status.ok()) << loaded.output;
  for (const std::string table : {"customers", "orders", "empty_one"})
    EXPECT_EQ(tableRows(target, table), tableRows(shop->url, table)) << table;
  EXPECT_EQ(scalar(target, "SELECT count(*) FROM big_orders"),
            scalar(shop->url, "SELECT count(*) FROM big_orders"));
  EXPECT_EQ(scalar(target, "SELECT nextval('orders_id_seq')"), "1001");
  EXPECT_EQ(scalar(target, "SELECT indexdef FROM pg_indexes WHERE indexname = 'orders_placed'"),
            "CREATE INDEX orders_placed ON public.orders USING btree (placed)");
  EXPECT_EQ(scalar(target, "SELECT confdeltype FROM pg_constraint WHERE contype = 'f'"), "c");
}

TEST_F(ExportApi, FormatsGzipAndHeaders) {
  for (const std::string alias : {"postgres", "postgresql", "pg", "sql", "PG"}) {
    auto r = mustExport("?format=" + alias);
    expectAttachment(r, shop->name, ".sql", "application/sql");
    EXPECT_NE(r.body.find("COPY public.orders"), std::string::npos) << alias;
  }
  for (const std::string yes : {"1", "true", "yes"}) {
    auto r = mustExport("?format=sql&gzip=" + yes);
    expectAttachment(r, shop->name, ".sql.gz", "application/gzip");
    EXPECT_EQ(gunzip(r.body).rfind("--\n-- PostgreSQL database dump", 0), 0u);
  }
  auto plain = mustExport("?gzip=0");
  expectAttachment(plain, shop->name, ".sql", "application/sql");
  for (const std::string alias : {"mysql", "mariadb"}) {
    auto r = mustExport("?format=" + alias);
    expectAttachment(r, shop->name, "-mysql.sql", "application/sql");
    EXPECT_NE(r.body.find("CREATE TABLE `orders`"), std::string::npos);
  }
  auto mysql_gz = mustExport("?format=mysql&gzip=yes");
  expectAttachment(mysql_gz, shop->name, "-mysql.sql.gz", "application/gzip");
  EXPECT_NE(gunzip(mysql_gz.body).find("CREATE TABLE `orders`"), std::string::npos);
  auto json_plain = mustExport("?format=json");
  expectAttachment(json_plain, shop->name, ".json", "application/json");
  auto json_gz = mustExport("?format=json&gzip=true");
  expectAttachment(json_gz, shop->name, ".json.gz", "application/gzip");
  EXPECT_EQ(json::parse(gunzip(json_gz.body)), json::parse(json_plain.body));

  auto unknown = exportAs("?format=xml");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(errorText(unknown), "unknown format xml; use postgres (or sql), mysql or json");
  auto bad_gzip = exportAs("?gzip=maybe");
  EXPECT_EQ(bad_gzip.status, 400);
  EXPECT_EQ(errorText(bad_gzip), "gzip must be 1, true or yes (or 0, false or no)");
}

TEST_F(ExportApi, JsonExportHoldsEveryTableWithItsRows) {
  auto r = mustExport("?format=json");
  json doc = json::parse(r.body);
  ASSERT_TRUE(doc.is_object());
  ASSERT_EQ(doc.size(), 1u);
  json tables = doc["tables"];
  std::vector<std::string> names;
  for (const auto& [name, rows] : tables.items()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"customers", "empty_one", "orders"}));
  EXPECT_EQ(tables["empty_one"], json::array());
  EXPECT_EQ(tables["orders"].size(), 1000u);
  EXPECT_EQ(tables["orders"][0],
            json::parse(R"({"id":1,"customer_id":2,"total":0.75,"placed":"2024-01-01T01:00:00",
                            "status":"st1"})"));
  json ann = tables["customers"][0];
  EXPECT_EQ(ann["name"], "Ann O'Neil");
  EXPECT_EQ(ann["balance"], 1234.5);
  EXPECT_EQ(ann["vip"], true);
  EXPECT_EQ(ann["seen"], "2024-05-01T10:30:00.123456+00:00");
  EXPECT_EQ(ann["note"], "line one\nline \"two\"\ttab \\ back");
  EXPECT_EQ(ann["photo"], "\\x00ff10");
  EXPECT_EQ(ann["prefs"], json::parse(R"({"theme": "dark", "n": [1, 2]})"));
  EXPECT_EQ(ann["tags"], json::parse(R"(["a", "b,c"])"));
  EXPECT_EQ(tables["customers"][1]["name"], "Zoë ✓ 😀");
  EXPECT_EQ(tables["customers"][1]["rating"], "NaN");
  // Columns keep their order in each row object.
  EXPECT_NE(r.body.find(R"({"id":1,"name":"Ann O'Neil","email":)"), std::string::npos);
}

TEST_F(ExportApi, MysqlExportLoadsIntoMariaDB) {
  if (!mariadbInstalled()) {
    if (std::getenv("CI") != nullptr)
      FAIL() << "mariadb-server is not installed (scripts/install-deps.sh)";
    GTEST_SKIP() << "mariadb-server is not installed; scripts/install-deps.sh installs it";
  }
  auto r = mustExport("?format=mysql");
  const std::string file = *dir + "/shop-mysql.sql";
  writeFile(file, r.body);
  MariaDbServer maria;
  ASSERT_NO_THROW(maria.load("shop", file)) << r.body.substr(0, 3000);
  EXPECT_EQ(maria.value("shop", "SELECT COUNT(*) FROM customers"), "3");
  EXPECT_EQ(maria.value("shop", "SELECT COUNT(*) FROM orders"), "1000");
  EXPECT_EQ(maria.value("shop", "SELECT COUNT(*) FROM empty_one"), "0");
  EXPECT_EQ(maria.value("shop", "SELECT SUM(total) FROM orders"),
            scalar(shop->url, "SELECT sum(total) FROM orders"));
  // Strings come back byte for byte (HEX, so the client's own escaping does not get in the way).
  for (int id = 1; id <= 3; ++id) {
    const std::string where = " FROM customers WHERE id = " + std::to_string(id);
    EXPECT_EQ(maria.value("shop", "SELECT HEX(name)" + where),
              scalar(shop->url, "SELECT upper(encode(convert_to(name, 'UTF8'), 'hex'))" + where));
    EXPECT_EQ(
        maria.value("shop", "SELECT IFNULL(HEX(note), 'NULL')" + where),
        scalar(shop->url,
               "SELECT coalesce(upper(encode(convert_to(note, 'UTF8'), 'hex')), 'NULL')" + where));
  }
  EXPECT_EQ(maria.value("shop", "SELECT HEX(photo) FROM customers WHERE id = 1"), "00FF10");
  EXPECT_EQ(maria.value("shop",
                        "SELECT CONCAT(vip, ' ', balance, ' ', rating, ' ', joined, ' ', seen) "
                        "FROM customers WHERE id = 1"),
            "1 1234.50 4.25 2020-02-29 2024-05-01 10:30:00.123456");
  EXPECT_EQ(maria.value("shop", "SELECT JSON_VALUE(prefs, '$.theme') FROM customers WHERE id = 1"),
            "dark");
  EXPECT_EQ(maria.value("shop", "SELECT JSON_LENGTH(tags) FROM customers WHERE id = 1"), "2");
  EXPECT_EQ(maria.value("shop", "SELECT code FROM customers WHERE id = 1"),
            "00000000-0000-0000-0000-00000000000a");
  EXPECT_EQ(maria.value("shop", "SELECT IFNULL(rating, 'NULL') FROM customers WHERE id = 2"),
            "NULL");
  EXPECT_EQ(maria.value("shop", "SELECT placed FROM orders WHERE id = 1000"),
            "2024-02-11 16:00:00.000000");
  // Keys came along: the primary key, the unique name, the foreign key, and AUTO_INCREMENT
  // going on from the highest id.
  EXPECT_EQ(maria.value("shop",
                        "SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE "
                        "WHERE TABLE_SCHEMA = 'shop' AND REFERENCED_TABLE_NAME = 'customers'"),
            "1");
  auto duplicate = maria.run("INSERT INTO customers (name) VALUES ('Ann O\\'Neil')", "shop");
  EXPECT_FALSE(duplicate.status.ok()) << "the unique key on name holds";
  ASSERT_TRUE(
      maria.run("INSERT INTO orders (customer_id, total) VALUES (1, 5)", "shop").status.ok());
  EXPECT_EQ(maria.value("shop", "SELECT MAX(id) FROM orders"), "1001");
  EXPECT_EQ(maria.value("shop", "SELECT status FROM orders WHERE id = 1001"), "new");
}

TEST_F(ExportApi, AnExportImportsIntoASecondProjectWithIdenticalRows) {
  auto exported = mustExport("?format=postgres");
  TestProject copy = makeProject(*server, client(), "shopcopy", "expowner");
  auto imported = importScript(client(), copy.name, exported.body);
  ASSERT_EQ(imported.status, 200) << imported.body;
  EXPECT_EQ(imported.json()["tables"], 3);
  for (const std::string table : {"customers", "orders", "empty_one"})
    EXPECT_EQ(tableRows(copy.url, table), tableRows(shop->url, table)) << table;
  EXPECT_EQ(scalar(copy.url, "SELECT count(*) FROM big_orders"),
            scalar(shop->url, "SELECT count(*) FROM big_orders"));
}

TEST_F(ExportApi, ExportFilesWaitUnderDataDirUntilTheCleanupTakesThem) {
  namespace fs = std::filesystem;
  const fs::path exports = fs::path(server->dataDir()) / "sqlconsole" / "exports";
  mustExport("?format=json");
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(exports)) {
    ++files;
    // 128 random bits in hex, then what the format writes.
    EXPECT_TRUE(std::regex_match(entry.path().filename().string(),
                                 std::regex(R"([0-9a-f]{32}(\.sql|-mysql\.sql|\.json)(\.gz)?)")))
        << entry.path();
  }
  EXPECT_GE(files, 1u);
  EXPECT_EQ(fs::status(exports).permissions() & fs::perms::all,
            fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);

  // The cleanup takes files older than the time they are kept, and only those.
  const std::string scratch = *dir + "/data";
  const std::string fresh = berth::sqlconsole::newExportPath(scratch, ".sql");
  const std::string old = berth::sqlconsole::newExportPath(scratch, ".sql");
  writeFile(fresh, "x");
  writeFile(old, "y");
  fs::last_write_time(old, fs::file_time_type::clock::now() - berth::sqlconsole::kExportKeep -
                               std::chrono::minutes(1));
  EXPECT_EQ(berth::sqlconsole::sweepExports(
                scratch,
                std::chrono::duration_cast<std::chrono::seconds>(berth::sqlconsole::kExportKeep)),
            1u);
  EXPECT_TRUE(fs::exists(fresh));
  EXPECT_FALSE(fs::exists(old));
}
