// The data project's database: rows, the browser data API (/_data), SQL, import and export.
// The table notes grows by inserts and is trimmed by deletes, so it stays about the same size.
#include "soak/ops.hpp"
#include "soak/requests.hpp"

namespace berth::soak {

namespace {

using nlohmann::json;

std::string rowsPath(const World& world) {
  return "/projects/" + world.data + "/tables/notes/rows";
}

Request dataApi(const World& world, std::string method, std::string path, std::set<long> expect) {
  Request r = onHost("data-api", world.data, std::move(path), "");
  r.method = std::move(method);
  r.headers = {"apikey: " + world.data_key};
  r.expect = std::move(expect);
  return r;
}

void noteNewest(World& world, const json& rows) {
  if (!rows.is_array()) return;
  for (const auto& row : rows)
    if (row.is_object() && row.contains("id") && row["id"].is_number_integer()) {
      long id = row["id"].get<long>(), seen = world.last_note_id.load();
      while (id > seen && !world.last_note_id.compare_exchange_weak(seen, id)) {
      }
    }
}

}  // namespace

void opRowsRead(const Client& c, World& world, ClientState& s) {
  const char* queries[] = {"?order=id.desc&limit=20", "?n=gte.50&order=n.asc,id.desc&limit=10",
                           "?select=id,body&limit=5&offset=3", "?body=like.note*&limit=15"};
  c.call(get("rows", rowsPath(world) + queries[s.pick(4)]));
}

void opRowsWrite(const Client& c, World& world, ClientState& s) {
  const long newest = world.last_note_id.load();
  switch (s.pick(4)) {
    case 0:
    case 1: {
      json rows =
          json::array({{{"body", "note " + std::to_string(s.n)}, {"n", s.pick(100)}},
                       {{"body", "note from " + std::to_string(s.id)}, {"n", s.pick(100)}}});
      auto made = c.call(jsonRequest("rows", "POST", rowsPath(world), rows, {201}));
      if (made.status == 201) noteNewest(world, made.json());
      break;
    }
    case 2:
      c.call(jsonRequest("rows", "PATCH", rowsPath(world) + "?id=eq." + std::to_string(newest),
                         {{"body", "note changed by " + std::to_string(s.id)}}, {200}));
      break;
    default:
      // Keeps the newest 300 or so: the table stays small whatever the run's length.
      c.call(del("rows", rowsPath(world) + "?id=lt." + std::to_string(newest - 300), {200}));
  }
}

void opDataApiRead(const Client& c, World& world, ClientState& s) {
  if (s.pick(4) == 0) {
    c.call(get("data-api", "/projects/" + world.data + "/data-api"));
    return;
  }
  std::string query;
  switch (s.pick(3)) {
    case 0:
      query = "?order=id.desc&limit=10";
      break;
    case 1:
      query = "?select=id,n&n=lt.10&limit=20";
      break;
    default:
      query = "?id=eq." + std::to_string(world.last_note_id.load());
  }
  c.call(dataApi(world, "GET", "/_data/notes" + query, {200}));
}

void opDataApiWrite(const Client& c, World& world, ClientState& s) {
  Request r = dataApi(world, "POST", "/_data/notes", {201});
  r.headers.push_back(Client::jsonType());
  r.headers.push_back("Prefer: return=representation");
  r.body = json{{"body", "note by key " + std::to_string(s.n)}, {"n", s.pick(100)}}.dump();
  auto made = c.call(r);
  if (made.status == 201) noteNewest(world, made.json());
}

void opQuery(const Client& c, World& world, ClientState& s) {
  const std::string base = "/projects/" + world.data;
  if (s.pick(3) == 0) {
    json statements = json::array(
        {"insert into notes (body, n) values ('batch " + std::to_string(s.n) + "', 7)",
         "update notes set n = n + 1 where id = " + std::to_string(world.last_note_id.load()),
         "select count(*) from notes"});
    c.call(jsonRequest("sql", "POST", base + "/batch", {{"statements", statements}}, {200}));
    return;
  }
  const char* sql[] = {"select count(*), max(id), avg(n) from notes",
                       "select id, body from notes order by id desc limit 25",
                       "select n, count(*) from notes group by n order by 2 desc limit 10"};
  c.call(jsonRequest("sql", "POST", base + "/query", {{"sql", sql[s.pick(3)]}}, {200}));
}

void opSchema(const Client& c, World& world, ClientState& s) {
  const std::string base = "/projects/" + world.data;
  switch (s.pick(5)) {
    case 0:
      c.call(get("sql", base + "/tables"));
      break;
    case 1:
      c.call(get("sql", base + "/views"));
      break;
    case 2:
      c.call(get("sql", base + "/indexes"));
      break;
    case 3:
      c.call(get("sql", base + "/backup"));
      break;
    default: {
      // A table of this client's own, made and dropped: the catalogue changes under the
      // other clients' reads.
      const std::string table = "scratch_c" + std::to_string(s.id);
      c.call(jsonRequest("sql", "POST", base + "/sql",
                         {{"sql", "create table " + table +
                                      " (id serial primary key, v text); "
                                      "create index on " +
                                      table + " (v); drop table " + table}},
                         {200}));
    }
  }
}

void opImport(const Client& c, World& world, ClientState& s) {
  // One import at a time: two of the same script at once would race on its primary keys.
  std::lock_guard lock(world.importing);
  Request r;
  r.family = "import";
  r.method = "POST";
  r.path = "/projects/" + world.data + "/import";
  r.headers = {"Content-Type: application/octet-stream"};
  r.body =
      "-- a small dump\nSET client_encoding = 'UTF8';\n"
      "CREATE TABLE IF NOT EXISTS imported (id integer PRIMARY KEY, v text, at timestamptz "
      "DEFAULT now());\nDELETE FROM imported;\n";
  for (int i = 0; i < 50; ++i)
    r.body += "INSERT INTO imported (id, v) VALUES (" + std::to_string(i) + ", 'row " +
              std::to_string(i) + " of " + std::to_string(s.n) + "');\n";
  c.call(r);
}

void opExport(const Client& c, World& world, ClientState& s) {
  const char* formats[] = {"postgres", "mysql", "json", "sql"};
  c.call(get("export", "/projects/" + world.data + "/export?format=" + formats[s.pick(4)] +
                           (s.pick(2) ? "&gzip=1" : "")));
}

}  // namespace berth::soak
