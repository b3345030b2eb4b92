// PostgreSQL values into JSON (/query, /batch, the json export) and into MySQL (the mysql
// export), piece by piece: every rule of query_values.hpp and mysql_dialect.hpp, including the
// inputs that must fall back to a string or NULL rather than give wrong JSON or SQL.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <berth/util/json_text.hpp>
#include "mysql_dialect.hpp"
#include "query_values.hpp"

namespace berth::sqlconsole {
namespace {

std::string jsonOf(uint32_t oid, std::string_view text) {
  std::string out;
  appendJsonValue(out, oid, text);
  EXPECT_FALSE(nlohmann::json::parse(out, nullptr, false).is_discarded()) << out;
  return out;
}

std::string jsonQuoted(std::string_view text) {
  std::string out;
  appendJsonString(out, text);
  return out;
}

std::string mysqlOf(uint32_t oid, std::string_view text, bool as_json = false) {
  std::string out;
  appendMysqlValue(out, oid, text, as_json);
  return out;
}

ExportColumn column(uint32_t oid, int32_t typmod = -1, std::optional<std::string> def = {}) {
  ExportColumn c;
  c.name = "c";
  c.typeOid = oid;
  c.typmod = typmod;
  c.defaultExpr = std::move(def);
  return c;
}

TEST(JsonText, EscapesWhatJsonNeedsAndRepairsBytesThatAreNotUtf8) {
  EXPECT_EQ(jsonQuoted("plain"), "\"plain\"");
  EXPECT_EQ(jsonQuoted("a\"b\\c\n\r\t\b\f"), R"("a\"b\\c\n\r\t\b\f")");
  EXPECT_EQ(jsonQuoted(std::string("\x01\x1f", 2)), R"("\u0001\u001f")");
  EXPECT_EQ(jsonQuoted(std::string("nul\0byte", 8)), R"("nul\u0000byte")");
  EXPECT_EQ(jsonQuoted("Zoë ✓ 😀"), "\"Zoë ✓ 😀\"");
  EXPECT_EQ(jsonQuoted("caf\xE9!"), "\"caf\xEF\xBF\xBD!\"");                          // Latin-1 é
  EXPECT_EQ(jsonQuoted("\xED\xA0\x80"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // a surrogate
  EXPECT_EQ(jsonQuoted("\xF0\x9F\x98"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // cut short
  EXPECT_EQ(nlohmann::json::parse(jsonQuoted("caf\xE9")).get<std::string>(), "caf\xEF\xBF\xBD");
}

TEST(QueryValues, NumbersStayNumbersWhileADoubleHoldsThemExactly) {
  EXPECT_EQ(jsonOf(pgtype::kInt4, "-42"), "-42");
  EXPECT_EQ(jsonOf(pgtype::kInt2, "7"), "7");
  EXPECT_EQ(jsonOf(pgtype::kInt8, "9007199254740992"), "9007199254740992");
  EXPECT_EQ(jsonOf(pgtype::kInt8, "-9007199254740992"), "-9007199254740992");
  EXPECT_EQ(jsonOf(pgtype::kInt8, "9007199254740993"), "\"9007199254740993\"");
  EXPECT_EQ(jsonOf(pgtype::kInt8, "-9223372036854775808"), "\"-9223372036854775808\"");
  EXPECT_EQ(jsonOf(pgtype::kNumeric, "12.50"), "12.5");
  EXPECT_EQ(jsonOf(pgtype::kNumeric, "12.000"), "12");
  EXPECT_EQ(jsonOf(pgtype::kNumeric, "-0.00"), "0");
  EXPECT_EQ(jsonOf(pgtype::kNumeric, "0.000123"), "0.000123");
  EXPECT_EQ(jsonOf(pgtype::kNumeric, "123456789.012345"), "123456789.012345");        // 15 digits
  EXPECT_EQ(jsonOf(pgtype::kNumeric, "1234567890.123456"), "\"1234567890.123456\"");  // 16
  EXPECT_EQ(jsonOf(pgtype::kNumeric, "100000000000000000000"), "\"100000000000000000000\"");
  EXPECT_EQ(jsonOf(pgtype::kNumeric, "NaN"), "\"NaN\"");
  EXPECT_EQ(jsonOf(pgtype::kNumeric, "Infinity"), "\"Infinity\"");
  EXPECT_EQ(jsonOf(pgtype::kFloat8, "1.5e+300"), "1.5e+300");
  EXPECT_EQ(jsonOf(pgtype::kFloat8, "-Infinity"), "\"-Infinity\"");
  EXPECT_EQ(jsonOf(pgtype::kFloat4, "NaN"), "\"NaN\"");
  EXPECT_EQ(jsonOf(pgtype::kInt4, "not a number"), "\"not a number\"");
}

TEST(QueryValues, BooleansJsonBytesAndText) {
  EXPECT_EQ(jsonOf(pgtype::kBool, "t"), "true");
  EXPECT_EQ(jsonOf(pgtype::kBool, "f"), "false");
  EXPECT_EQ(jsonOf(pgtype::kJsonb, R"({"a": [1, 2.50, 12345678901234567890123]})"),
            R"({"a": [1, 2.50, 12345678901234567890123]})");
  EXPECT_EQ(jsonOf(pgtype::kJson, "\"text\""), "\"text\"");
  EXPECT_EQ(jsonOf(pgtype::kBytea, "\\x00ff"), R"("\\x00ff")");
  EXPECT_EQ(jsonOf(pgtype::kText, "line\nbreak"), R"("line\nbreak")");
  EXPECT_EQ(jsonOf(pgtype::kUuid, "00000000-0000-0000-0000-000000000001"),
            "\"00000000-0000-0000-0000-000000000001\"");
}

TEST(QueryValues, TimestampsBecomeIso8601) {
  EXPECT_EQ(isoDateTime("2024-05-01 12:00:00", true), "2024-05-01T12:00:00");
  EXPECT_EQ(isoDateTime("2024-05-01 12:00:00.123456+02", true), "2024-05-01T12:00:00.123456+02:00");
  EXPECT_EQ(isoDateTime("2024-05-01 12:00:00-03:30", true), "2024-05-01T12:00:00-03:30");
  EXPECT_EQ(isoDateTime("1850-01-01 00:00:00+00:53:28", true), "1850-01-01 00:00:00+00:53:28");
  EXPECT_EQ(isoDateTime("0044-03-15 12:00:00 BC", true), "0044-03-15 12:00:00 BC");
  EXPECT_EQ(isoDateTime("infinity", true), "infinity");
  EXPECT_EQ(isoDateTime("Wed May 01 12:00:00 2024", true), "Wed May 01 12:00:00 2024");
  EXPECT_EQ(isoDateTime("12:00:00+02", false), "12:00:00+02:00");
  EXPECT_EQ(jsonOf(pgtype::kTimestamptz, "2024-05-01 10:30:00+00"),
            "\"2024-05-01T10:30:00+00:00\"");
  EXPECT_EQ(jsonOf(pgtype::kDate, "2024-05-01"), "\"2024-05-01\"");
}

TEST(QueryValues, ArraysBecomeJsonArraysOfTheirElementType) {
  EXPECT_EQ(jsonOf(1007, "{1,NULL,3}"), "[1,null,3]");
  EXPECT_EQ(jsonOf(1007, "{}"), "[]");
  EXPECT_EQ(jsonOf(1007, "{{1,2},{3,4}}"), "[[1,2],[3,4]]");
  EXPECT_EQ(jsonOf(1007, "[0:1]={5,6}"), "[5,6]");
  EXPECT_EQ(jsonOf(1009, R"({plain,"with, comma","quote \" and \\ back","NULL",NULL})"),
            R"(["plain","with, comma","quote \" and \\ back","NULL",null])");
  EXPECT_EQ(jsonOf(1000, "{t,f}"), "[true,false]");
  EXPECT_EQ(jsonOf(1231, "{1.50,NaN}"), R"([1.5,"NaN"])");
  EXPECT_EQ(jsonOf(3807, R"({"{\"a\": 1}","[2]"})"), R"([{"a": 1},[2]])");
  EXPECT_EQ(jsonOf(1185, R"({"2024-05-01 10:30:00+00"})"), R"(["2024-05-01T10:30:00+00:00"])");
  // Not in array form: the text as a string, never broken JSON.
  EXPECT_EQ(jsonOf(1007, "{1,2"), R"("{1,2")");
  EXPECT_EQ(jsonOf(1007, "{1,}"), R"("{1,}")");
  EXPECT_EQ(jsonOf(1007, "1,2"), R"("1,2")");
}

TEST(MysqlDialect, IdentifiersAndStrings) {
  EXPECT_EQ(mysqlIdentifier("orders"), "`orders`");
  EXPECT_EQ(mysqlIdentifier("we`ird"), "`we``ird`");
  std::string out;
  appendMysqlString(out, std::string("a'b\"c\\d\ne\rf\x1ag\0h", 15));
  EXPECT_EQ(out, R"('a\'b\"c\\d\ne\rf\Zg\0h')");
}

TEST(MysqlDialect, TypesMapToWhatMysqlHoldsAndIndexes) {
  EXPECT_EQ(mysqlType(column(pgtype::kInt4), false), "INT");
  EXPECT_EQ(mysqlType(column(pgtype::kInt8), false), "BIGINT");
  EXPECT_EQ(mysqlType(column(pgtype::kBool), false), "TINYINT(1)");
  EXPECT_EQ(mysqlType(column(pgtype::kNumeric, ((10 << 16) | 2) + 4), false), "DECIMAL(10,2)");
  EXPECT_EQ(mysqlType(column(pgtype::kNumeric), false), "DECIMAL(65,30)");
  EXPECT_EQ(mysqlType(column(pgtype::kNumeric, ((100 << 16) | 2) + 4), false), "DECIMAL(65,30)");
  EXPECT_EQ(mysqlType(column(pgtype::kVarchar, 120 + 4), false), "VARCHAR(120)");
  EXPECT_EQ(mysqlType(column(pgtype::kVarchar, 2000 + 4), false), "LONGTEXT");
  EXPECT_EQ(mysqlType(column(pgtype::kVarchar, 2000 + 4), true), "VARCHAR(768)");
  EXPECT_EQ(mysqlType(column(pgtype::kText), false), "LONGTEXT");
  EXPECT_EQ(mysqlType(column(pgtype::kText), true), "VARCHAR(255)");
  EXPECT_EQ(mysqlType(column(pgtype::kBpchar, 3 + 4), false), "CHAR(3)");
  EXPECT_EQ(mysqlType(column(pgtype::kBytea), false), "LONGBLOB");
  EXPECT_EQ(mysqlType(column(pgtype::kTimestamptz), false), "DATETIME(6)");
  EXPECT_EQ(mysqlType(column(pgtype::kTimestamp, 3), false), "DATETIME(3)");
  EXPECT_EQ(mysqlType(column(pgtype::kUuid), false), "CHAR(36)");
  EXPECT_EQ(mysqlType(column(pgtype::kJsonb), false), "JSON");
  ExportColumn array = column(1007);
  array.isArray = true;
  EXPECT_EQ(mysqlType(array, false), "JSON");
}

TEST(MysqlDialect, ValuesMysqlCannotHoldBecomeNull) {
  EXPECT_EQ(mysqlOf(pgtype::kBool, "t"), "1");
  EXPECT_EQ(mysqlOf(pgtype::kNumeric, "-12.50"), "-12.50");
  EXPECT_EQ(mysqlOf(pgtype::kFloat8, "1e+100"), "1e+100");
  EXPECT_EQ(mysqlOf(pgtype::kFloat8, "NaN"), "NULL");
  EXPECT_EQ(mysqlOf(pgtype::kNumeric, "-Infinity"), "NULL");
  EXPECT_EQ(mysqlOf(pgtype::kBytea, "\\x00ff"), "X'00ff'");
  EXPECT_EQ(mysqlOf(pgtype::kBytea, "\\x"), "''");
  EXPECT_EQ(mysqlOf(pgtype::kTimestamptz, "2024-05-01 10:30:00.5+00"), "'2024-05-01 10:30:00.5'");
  EXPECT_EQ(mysqlOf(pgtype::kTimestamp, "infinity"), "NULL");
  EXPECT_EQ(mysqlOf(pgtype::kTimestamp, "0044-03-15 12:00:00 BC"), "NULL");
  EXPECT_EQ(mysqlOf(pgtype::kDate, "0999-12-31"), "NULL");
  EXPECT_EQ(mysqlOf(pgtype::kDate, "2024-02-29"), "'2024-02-29'");
  EXPECT_EQ(mysqlOf(pgtype::kTimetz, "12:00:00+02"), "'12:00:00'");
  EXPECT_EQ(mysqlOf(pgtype::kText, "it's"), R"('it\'s')");
  EXPECT_EQ(mysqlOf(1009, R"({a,"b\"c"})", true), R"('[\"a\",\"b\\\"c\"]')");
}

TEST(MysqlDialect, DefaultsWithAMysqlForm) {
  EXPECT_EQ(mysqlDefault(column(pgtype::kInt4, -1, "0"), "INT"), "0");
  EXPECT_EQ(mysqlDefault(column(pgtype::kInt4, -1, "'-1'::integer"), "INT"), "-1");
  EXPECT_EQ(mysqlDefault(column(pgtype::kInt4, -1, "(-1)"), "INT"), "-1");
  EXPECT_EQ(mysqlDefault(column(pgtype::kText, -1, "'it''s'::text"), "LONGTEXT"), R"('it\'s')");
  EXPECT_EQ(mysqlDefault(column(pgtype::kBool, -1, "true"), "TINYINT(1)"), "1");
  EXPECT_EQ(mysqlDefault(column(pgtype::kTimestamptz, -1, "now()"), "DATETIME(6)"),
            "CURRENT_TIMESTAMP(6)");
  EXPECT_EQ(mysqlDefault(column(pgtype::kDate, -1, "CURRENT_DATE"), "DATE"), "(curdate())");
  EXPECT_EQ(mysqlDefault(column(pgtype::kTimestamptz, -1,
                                "'2024-01-01 10:00:00+00'::timestamp with time zone"),
                         "DATETIME(6)"),
            "'2024-01-01 10:00:00'");
  EXPECT_EQ(mysqlDefault(column(pgtype::kDate, -1, "'infinity'::date"), "DATE"), std::nullopt);
  EXPECT_EQ(mysqlDefault(column(pgtype::kUuid, -1, "gen_random_uuid()"), "CHAR(36)"), "(uuid())");
  EXPECT_EQ(mysqlDefault(column(pgtype::kText, -1, "NULL::text"), "LONGTEXT"), "NULL");
  EXPECT_EQ(mysqlDefault(column(pgtype::kText, -1, "upper('x'::text)"), "LONGTEXT"), std::nullopt);
  EXPECT_EQ(mysqlDefault(column(pgtype::kInt4, -1, "nextval('t_id_seq'::regclass)"), "INT"),
            std::nullopt);
  EXPECT_TRUE(autoIncrements(column(pgtype::kInt4, -1, "nextval('t_id_seq'::regclass)")));
  EXPECT_FALSE(autoIncrements(column(pgtype::kText, -1, "nextval('t_id_seq'::regclass)")));
}

}  // namespace
}  // namespace berth::sqlconsole
