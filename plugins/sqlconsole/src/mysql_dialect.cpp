#include "mysql_dialect.hpp"

#include <strings.h>
#include <cctype>

#include "query_values.hpp"

namespace berth::sqlconsole {
namespace {

constexpr uint32_t kInet = 869, kCidr = 650, kMacaddr = 829, kMacaddr8 = 774;

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// -?digits[.digits]
bool isPlainNumber(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  const size_t digits = i;
  while (i < s.size() && isDigit(s[i])) ++i;
  if (i == digits) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const size_t fraction = i;
    while (i < s.size() && isDigit(s[i])) ++i;
    if (i == fraction) return false;
  }
  return i == s.size();
}

// A number as PostgreSQL prints floats and numerics, exponent included; NaN and infinities are
// not numbers to MySQL.
bool isNumber(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!isDigit(c) && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E') return false;
  return isDigit(s.back()) && (isDigit(s[0]) || s[0] == '-' || s[0] == '.');
}

// "YYYY-MM-DD[ HH:MM:SS[.f]]" without its zone, when the year is one MySQL's DATE/DATETIME hold.
std::optional<std::string_view> mysqlDateTime(std::string_view text, bool with_time) {
  auto digits = [&](size_t at, size_t n) {
    if (at + n > text.size()) return false;
    for (size_t i = at; i < at + n; ++i)
      if (!isDigit(text[i])) return false;
    return true;
  };
  if (!digits(0, 4) || text.size() < 10 || text[4] != '-' || !digits(5, 2) || text[7] != '-' ||
      !digits(8, 2) || text[0] == '0')
    return std::nullopt;  // BC, infinity, a year of five digits or before 1000
  if (!with_time) return text.size() == 10 ? std::optional(text) : std::nullopt;
  if (text.size() < 19 || text[10] != ' ' || !digits(11, 2) || text[13] != ':' || !digits(14, 2) ||
      text[16] != ':' || !digits(17, 2))
    return std::nullopt;
  size_t end = 19;
  if (end < text.size() && text[end] == '.') {
    ++end;
    while (end < text.size() && isDigit(text[end])) ++end;
  }
  if (end < text.size() && text[end] != '+' && text[end] != '-') return std::nullopt;
  return text.substr(0, end);  // timestamptz: read in UTC, so the zone is +00
}

std::string_view withoutZone(std::string_view time) {
  const size_t zone = time.find_first_of("+-");
  return zone == std::string_view::npos ? time : time.substr(0, zone);
}

std::string precisionOf(int32_t typmod) {
  return typmod >= 0 && typmod <= 6 ? std::to_string(typmod) : "6";
}

// A PostgreSQL literal 'text' (quotes doubled inside), as pg_get_expr prints a default; the
// text and what follows it.
std::optional<std::pair<std::string, std::string_view>> quotedLiteral(std::string_view expr) {
  if (expr.empty() || expr[0] != '\'') return std::nullopt;
  std::string value;
  size_t i = 1;
  for (;;) {
    if (i >= expr.size()) return std::nullopt;
    if (expr[i] == '\'') {
      if (i + 1 < expr.size() && expr[i + 1] == '\'') {
        value.push_back('\'');
        i += 2;
        continue;
      }
      ++i;
      break;
    }
    value.push_back(expr[i++]);
  }
  return std::make_pair(value, expr.substr(i));
}

bool isIntegerType(uint32_t oid) {
  return oid == pgtype::kInt2 || oid == pgtype::kInt4 || oid == pgtype::kInt8;
}

bool isNumericType(uint32_t oid) {
  return isIntegerType(oid) || oid == pgtype::kNumeric || oid == pgtype::kFloat4 ||
         oid == pgtype::kFloat8 || oid == pgtype::kOid;
}

bool equalsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::string mysqlIdentifier(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out.push_back('`');
    out.push_back(c);
  }
  out.push_back('`');
  return out;
}

void appendMysqlString(std::string& out, std::string_view text) {
  out.reserve(out.size() + text.size() + 2);
  out.push_back('\'');
  for (char c : text) {
    switch (c) {
      case '\0':
        out += "\\0";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\x1a':
        out += "\\Z";
        break;
      default:
        out.push_back(c);
    }
  }
  out.push_back('\'');
}

std::string mysqlType(const ExportColumn& column, bool key) {
  const int32_t mod = column.typmod;
  const std::string text = key ? "VARCHAR(255)" : "LONGTEXT";
  if (column.isArray) return "JSON";
  if (column.isEnum) return "VARCHAR(255)";
  switch (column.typeOid) {
    case pgtype::kBool:
      return "TINYINT(1)";
    case pgtype::kInt2:
      return "SMALLINT";
    case pgtype::kInt4:
      return "INT";
    case pgtype::kInt8:
      return "BIGINT";
    case pgtype::kOid:
      return "INT UNSIGNED";
    case pgtype::kFloat4:
      return "FLOAT";
    case pgtype::kFloat8:
      return "DOUBLE";
    case pgtype::kNumeric: {
      if (mod >= 4) {
        const int precision = ((mod - 4) >> 16) & 0xffff;
        const int scale = (((mod - 4) & 0x7ff) ^ 1024) - 1024;
        if (precision >= 1 && precision <= 65 && scale >= 0 && scale <= 30 && scale <= precision)
          return "DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
      }
      return "DECIMAL(65,30)";  // numeric without a precision: 35 digits before the point
    }
    case pgtype::kBpchar: {
      const int length = mod >= 4 ? mod - 4 : 0;
      if (length >= 1 && length <= 255) return "CHAR(" + std::to_string(length) + ")";
      if (key && length >= 1 && length <= 768) return "VARCHAR(" + std::to_string(length) + ")";
      return text;
    }
    case pgtype::kVarchar: {
      const int length = mod >= 4 ? mod - 4 : 0;
      if (length >= 1 && length <= 255) return "VARCHAR(" + std::to_string(length) + ")";
      // Longer ones go off the row (MySQL's row holds 65535 bytes), unless they are keys,
      // which InnoDB indexes up to 3072 bytes (768 characters of utf8mb4).
      if (key) return "VARCHAR(" + std::to_string(length >= 1 ? std::min(length, 768) : 255) + ")";
      return "LONGTEXT";
    }
    case pgtype::kName:
      return "VARCHAR(64)";
    case pgtype::kBytea:
      return key ? "VARBINARY(255)" : "LONGBLOB";
    case pgtype::kDate:
      return "DATE";
    case pgtype::kTime:
    case pgtype::kTimetz:
      return "TIME(" + precisionOf(mod) + ")";
    case pgtype::kTimestamp:
    case pgtype::kTimestamptz:
      return "DATETIME(" + precisionOf(mod) + ")";
    case pgtype::kInterval:
      return "VARCHAR(255)";
    case pgtype::kUuid:
      return "CHAR(36)";
    case pgtype::kJson:
    case pgtype::kJsonb:
      return key ? text : "JSON";
    case pgtype::kMoney:
    case kInet:
    case kCidr:
    case kMacaddr:
    case kMacaddr8:
      return "VARCHAR(64)";
    default:
      return text;
  }
}

void appendMysqlValue(std::string& out, uint32_t type_oid, std::string_view text, bool as_json) {
  if (as_json) {
    std::string json;
    appendJsonValue(json, type_oid, text);
    appendMysqlString(out, json);
    return;
  }
  switch (type_oid) {
    case pgtype::kBool:
      out += text == "t" ? "1" : "0";
      return;
    case pgtype::kInt2:
    case pgtype::kInt4:
    case pgtype::kInt8:
    case pgtype::kOid:
    case pgtype::kFloat4:
    case pgtype::kFloat8:
    case pgtype::kNumeric:
      out += isNumber(text) ? text : std::string_view("NULL");
      return;
    case pgtype::kBytea:
      if (text.size() >= 2 && text[0] == '\\' && text[1] == 'x') {
        if (text.size() == 2) {
          out += "''";
        } else {
          out += "X'";
          out.append(text.substr(2));
          out.push_back('\'');
        }
        return;
      }
      break;  // escape format: as a string
    case pgtype::kDate:
    case pgtype::kTimestamp:
    case pgtype::kTimestamptz:
      if (auto value = mysqlDateTime(text, type_oid != pgtype::kDate)) {
        appendMysqlString(out, *value);
      } else {
        out += "NULL";
      }
      return;
    case pgtype::kTimetz:
      appendMysqlString(out, withoutZone(text));
      return;
    default:
      break;
  }
  appendMysqlString(out, text);
}

bool autoIncrements(const ExportColumn& column) {
  if (!isIntegerType(column.typeOid)) return false;
  return column.identity || (column.defaultExpr && column.defaultExpr->rfind("nextval(", 0) == 0);
}

std::optional<std::string> mysqlDefault(const ExportColumn& column, std::string_view mysql_type) {
  if (!column.defaultExpr || autoIncrements(column)) return std::nullopt;
  std::string_view expr = *column.defaultExpr;
  while (expr.size() >= 2 && expr.front() == '(' && expr.back() == ')')
    expr = expr.substr(1, expr.size() - 2);
  const uint32_t oid = column.typeOid;
  const bool datetime = mysql_type.rfind("DATETIME", 0) == 0;

  if (auto literal = quotedLiteral(expr)) {
    const auto& [value, rest] = *literal;
    if (!rest.empty() && rest.rfind("::", 0) != 0) return std::nullopt;
    if (oid == pgtype::kBool) {
      if (value == "t" || equalsNoCase(value, "true")) return "1";
      if (value == "f" || equalsNoCase(value, "false")) return "0";
      return std::nullopt;
    }
    if (isNumericType(oid)) return isPlainNumber(value) ? std::optional(value) : std::nullopt;
    if (oid == pgtype::kBytea || column.isArray) return std::nullopt;
    std::string out;
    if (oid == pgtype::kDate || datetime) {
      // Read in UTC (the export's TimeZone), so the zone a timestamptz default shows is +00.
      const auto when = mysqlDateTime(value, oid != pgtype::kDate);
      if (!when) return std::nullopt;
      appendMysqlString(out, *when);
      return out;
    }
    appendMysqlString(out, value);
    return out;
  }
  if (isPlainNumber(expr) && isNumericType(oid)) return std::string(expr);
  if (oid == pgtype::kBool && (equalsNoCase(expr, "true") || equalsNoCase(expr, "false")))
    return equalsNoCase(expr, "true") ? "1" : "0";
  if (equalsNoCase(expr.substr(0, 4), "NULL") && (expr.size() == 4 || expr.substr(4, 2) == "::"))
    return "NULL";
  if (datetime) {
    for (std::string_view now : {"now()", "CURRENT_TIMESTAMP", "transaction_timestamp()",
                                 "statement_timestamp()", "LOCALTIMESTAMP", "clock_timestamp()"}) {
      if (equalsNoCase(expr, now)) {
        const size_t open = mysql_type.find('(');
        return "CURRENT_TIMESTAMP" +
               std::string(open == std::string_view::npos ? "" : mysql_type.substr(open));
      }
    }
  }
  if (oid == pgtype::kDate && equalsNoCase(expr, "CURRENT_DATE")) return "(curdate())";
  if (oid == pgtype::kUuid &&
      (equalsNoCase(expr, "gen_random_uuid()") || equalsNoCase(expr, "uuid_generate_v4()")))
    return "(uuid())";
  return std::nullopt;
}

}  // namespace berth::sqlconsole
