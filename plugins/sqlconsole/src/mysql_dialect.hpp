// PostgreSQL to MariaDB/MySQL, piece by piece, for the mysql export: column types, identifiers,
// literals and the default values that have a MySQL form. The choices are listed in the README
// ("Export", mysql).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "export_schema.hpp"

namespace berth::sqlconsole {

// `name`, with backticks doubled inside.
std::string mysqlIdentifier(std::string_view name);

// 'text' escaped as mysql_real_escape_string does (\0 \n \r \\ \' \" \Z), quotes included. The
// dump sets sql_mode itself, so backslash escapes are on when it loads.
void appendMysqlString(std::string& out, std::string_view text);

// The MySQL column type for a PostgreSQL column. key: the column is part of a key (primary,
// unique, foreign or referenced), so it needs a type MySQL can index (VARCHAR, not TEXT).
std::string mysqlType(const ExportColumn& column, bool key);

// Appends the MySQL literal of one non-null value in PostgreSQL's text output (the export
// reads with DateStyle ISO, TimeZone UTC, bytea_output hex). A value MySQL cannot hold (NaN,
// infinity, a timestamp outside years 1000..9999) becomes NULL. as_json: the column is JSON in
// MySQL (json, jsonb, arrays): the value goes in as JSON text (arrays turned into JSON arrays).
void appendMysqlValue(std::string& out, uint32_t type_oid, std::string_view text, bool as_json);

// The DEFAULT clause for a column's default expression, when it has a MySQL form (numbers,
// strings, booleans, NULL, now(), CURRENT_DATE, gen_random_uuid()); nullopt otherwise.
std::optional<std::string> mysqlDefault(const ExportColumn& column, std::string_view mysql_type);

// A default that draws from a sequence (nextval(...)) or an identity column: AUTO_INCREMENT.
bool autoIncrements(const ExportColumn& column);

}  // namespace berth::sqlconsole
