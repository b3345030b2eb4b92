#include "export_json.hpp"

#include <berth/util/json_text.hpp>
#include "export_rows.hpp"
#include "export_schema.hpp"
#include "query_values.hpp"

namespace berth::sqlconsole {

void writeJsonExport(PgSession& session, ExportFile& out) {
  beginExport(session);
  const std::vector<ExportTable> tables = loadExportTables(session);
  out.write("{\"tables\":{");
  std::string line;
  for (size_t t = 0; t < tables.size(); ++t) {
    const ExportTable& table = tables[t];
    std::vector<std::string> names;
    std::vector<std::string> keys;  // "name":
    for (const ExportColumn& column : table.columns) {
      names.push_back(column.name);
      std::string key;
      appendJsonString(key, column.name);
      key.push_back(':');
      keys.push_back(std::move(key));
    }
    line.clear();
    if (t > 0) line.push_back(',');
    line += "\n";
    appendJsonString(line, table.name);
    line += ":[";
    out.write(line);
    bool first = true;
    forEachRow(session, table.name, names, [&](const PGresult* result) {
      line.clear();
      line += first ? "\n{" : ",\n{";
      first = false;
      for (size_t i = 0; i < keys.size(); ++i) {
        if (i > 0) line.push_back(',');
        line += keys[i];
        const int field = static_cast<int>(i);
        if (PQgetisnull(result, 0, field)) {
          line += "null";
        } else {
          appendJsonValue(line, PQftype(result, field),
                          std::string_view(PQgetvalue(result, 0, field),
                                           static_cast<size_t>(PQgetlength(result, 0, field))));
        }
      }
      line.push_back('}');
      out.write(line);
    });
    out.write("]");
  }
  out.write("\n}}\n");
  endExport(session);
}

}  // namespace berth::sqlconsole
