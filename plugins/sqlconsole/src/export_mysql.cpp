#include "export_mysql.hpp"

#include <ctime>
#include <map>
#include <set>

#include "export_rows.hpp"
#include "export_schema.hpp"
#include "mysql_dialect.hpp"

namespace berth::sqlconsole {
namespace {

constexpr size_t kInsertBytes = size_t{1} << 20;  // MariaDB's max_allowed_packet is 16 MB

using KeyColumns = std::map<std::string, std::set<std::string>>;  // table -> columns

// Columns that MySQL must be able to index: those of primary keys, unique indexes, foreign keys,
// and the columns foreign keys point at.
KeyColumns keyColumns(const std::vector<ExportTable>& tables) {
  KeyColumns keys;
  for (const ExportTable& table : tables) {
    for (const ExportIndex& index : table.indexes)
      if (index.unique || index.primary)
        keys[table.name].insert(index.columns.begin(), index.columns.end());
    for (const ExportForeignKey& key : table.foreignKeys) {
      keys[table.name].insert(key.columns.begin(), key.columns.end());
      keys[key.table].insert(key.toColumns.begin(), key.toColumns.end());
    }
  }
  return keys;
}

bool isLob(const std::string& type) {
  return type == "LONGTEXT" || type == "LONGBLOB" || type == "JSON";
}

bool isString(const std::string& type) {
  return type.rfind("VARCHAR", 0) == 0 || type.rfind("CHAR", 0) == 0;
}

std::string columnList(const std::vector<std::string>& columns) {
  std::string out = "(";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += ", ";
    out += mysqlIdentifier(columns[i]);
  }
  return out + ")";
}

std::string action(char code) {
  switch (code) {
    case 'c':
      return "CASCADE";
    case 'n':
      return "SET NULL";
    case 'r':
      return "RESTRICT";
    default:
      return "NO ACTION";  // 'a'; 'd' (SET DEFAULT) is not supported by InnoDB
  }
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

class MysqlWriter {
 public:
  MysqlWriter(PgSession& session, ExportFile& out) : session_(session), out_(out) {}

  void write(const std::string& title) {
    const std::vector<ExportTable> tables = loadExportTables(session_);
    const KeyColumns keys = keyColumns(tables);
    for (const ExportTable& table : tables) {
      auto& types = types_[table.name];
      const auto found = keys.find(table.name);
      for (const ExportColumn& column : table.columns) {
        const bool key = found != keys.end() && found->second.count(column.name) > 0;
        types[column.name] = mysqlType(column, key);
      }
    }
    out_.write("-- MariaDB / MySQL dump of " + title + ", made " + utcNow() +
               "\n-- The tables of the public schema with their rows; made for MariaDB 10.11.\n\n"
               "SET NAMES utf8mb4;\n"
               "SET TIME_ZONE = '+00:00';\n"
               "SET FOREIGN_KEY_CHECKS = 0;\n"
               "SET UNIQUE_CHECKS = 0;\n"
               "SET SQL_MODE = 'NO_AUTO_VALUE_ON_ZERO';\n\n");
    for (const ExportTable& table : tables) {
      if (table.columns.empty()) {
        out_.write("-- table " + table.name + " left out: MySQL has no table without columns\n\n");
        continue;
      }
      createTable(table);
      rows(table);
    }
    out_.write("SET FOREIGN_KEY_CHECKS = 1;\nSET UNIQUE_CHECKS = 1;\n");
  }

 private:
  const std::string& typeOf(const std::string& table, const std::string& column) {
    static const std::string kNone;
    auto t = types_.find(table);
    if (t == types_.end()) return kNone;
    auto c = t->second.find(column);
    return c == t->second.end() ? kNone : c->second;
  }

  // The column MySQL may AUTO_INCREMENT: one per table, integer, first column of an index.
  std::string autoIncrementColumn(const ExportTable& table) {
    for (const ExportColumn& column : table.columns) {
      if (!autoIncrements(column)) continue;
      for (const ExportIndex& index : table.indexes)
        if (index.columns.front() == column.name) return column.name;
    }
    return {};
  }

  void createTable(const ExportTable& table) {
    const std::string name = mysqlIdentifier(table.name);
    std::string sql = "DROP TABLE IF EXISTS " + name + ";\n";
    std::string notes;
    const std::string auto_column = autoIncrementColumn(table);
    std::vector<std::string> lines;
    for (const ExportColumn& column : table.columns) {
      const std::string& type = typeOf(table.name, column.name);
      std::string line = "  " + mysqlIdentifier(column.name) + " " + type;
      if (column.notNull) line += " NOT NULL";
      if (column.name == auto_column) {
        line += " AUTO_INCREMENT";
      } else if (auto value = mysqlDefault(column, type)) {
        line += " DEFAULT " + *value;
      }
      lines.push_back(std::move(line));
    }
    for (const ExportIndex& index : table.indexes) {
      bool indexable = true;
      for (const std::string& column : index.columns)
        if (isLob(typeOf(table.name, column))) indexable = false;
      if (!indexable) {
        notes += "-- index " + index.name + " left out: MySQL cannot index its column types\n";
        continue;
      }
      if (index.primary) {
        lines.push_back("  PRIMARY KEY " + columnList(index.columns));
      } else {
        lines.push_back(std::string("  ") + (index.unique ? "UNIQUE KEY " : "KEY ") +
                        mysqlIdentifier(index.name) + " " + columnList(index.columns));
      }
    }
    for (const ExportForeignKey& key : table.foreignKeys) {
      bool compatible = key.columns.size() == key.toColumns.size();
      for (size_t i = 0; compatible && i < key.columns.size(); ++i) {
        const std::string& from = typeOf(table.name, key.columns[i]);
        const std::string& to = typeOf(key.table, key.toColumns[i]);
        compatible = from == to || (isString(from) && isString(to));
      }
      if (!compatible) {
        notes += "-- foreign key " + key.name + " left out: its column types differ in MySQL\n";
        continue;
      }
      std::string line = "  CONSTRAINT " + mysqlIdentifier(key.name) + " FOREIGN KEY " +
                         columnList(key.columns) + " REFERENCES " + mysqlIdentifier(key.table) +
                         " " + columnList(key.toColumns);
      if (key.onDelete != 'd') line += " ON DELETE " + action(key.onDelete);
      if (key.onUpdate != 'd') line += " ON UPDATE " + action(key.onUpdate);
      lines.push_back(std::move(line));
    }
    sql += notes;
    sql += "CREATE TABLE " + name + " (\n";
    for (size_t i = 0; i < lines.size(); ++i)
      sql += lines[i] + (i + 1 < lines.size() ? ",\n" : "\n");
    sql += ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;\n\n";
    out_.write(sql);
  }

  void rows(const ExportTable& table) {
    std::vector<std::string> names;
    std::vector<bool> as_json;
    for (const ExportColumn& column : table.columns) {
      names.push_back(column.name);
      as_json.push_back(typeOf(table.name, column.name) == "JSON");
    }
    const std::string insert =
        "INSERT INTO " + mysqlIdentifier(table.name) + " " + columnList(names) + " VALUES\n";
    std::string statement;
    forEachRow(session_, table.name, names, [&](const PGresult* result) {
      statement += statement.empty() ? insert : ",\n";
      statement.push_back('(');
      for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0) statement.push_back(',');
        const int field = static_cast<int>(i);
        if (PQgetisnull(result, 0, field)) {
          statement += "NULL";
        } else {
          appendMysqlValue(statement, PQftype(result, field),
                           std::string_view(PQgetvalue(result, 0, field),
                                            static_cast<size_t>(PQgetlength(result, 0, field))),
                           as_json[i]);
        }
      }
      statement.push_back(')');
      if (statement.size() >= kInsertBytes) {
        statement += ";\n";
        out_.write(statement);
        statement.clear();
      }
    });
    if (!statement.empty()) {
      statement += ";\n";
      out_.write(statement);
    }
    out_.write("\n");
  }

  PgSession& session_;
  ExportFile& out_;
  std::map<std::string, std::map<std::string, std::string>> types_;
};

}  // namespace

void writeMysqlExport(PgSession& session, ExportFile& out, const std::string& title) {
  beginExport(session);
  MysqlWriter(session, out).write(title);
  endExport(session);
}

}  // namespace berth::sqlconsole
