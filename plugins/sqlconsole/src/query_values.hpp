// PostgreSQL values, as libpq hands them over in text format, turned into JSON values for
// /query, /batch and the JSON export. The rules (README "Query values"):
//  - smallint, integer, oid, real, double precision: numbers; NaN and ±Infinity: strings;
//  - bigint and numeric: numbers while a double holds them exactly (integers up to 2^53,
//    otherwise at most 15 significant digits); beyond that strings, so no digit is lost;
//  - boolean: true/false; json and jsonb: the JSON value itself;
//  - bytea: the hex text the database prints ("\x0102");
//  - timestamp, timestamptz, timetz: ISO 8601 ("2024-05-01T12:00:00+00:00"); date and time are
//    ISO already; infinity and BC dates stay as the database prints them;
//  - arrays of the types above: JSON arrays (nested for several dimensions);
//  - everything else (text, uuid, interval, enums, ...): the text as a string.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace berth::sqlconsole {

// Type OIDs of PostgreSQL's built-in types (pg_type.dat); they never change.
namespace pgtype {
inline constexpr uint32_t kBool = 16, kBytea = 17, kChar = 18, kName = 19, kInt8 = 20, kInt2 = 21,
                          kInt4 = 23, kText = 25, kOid = 26, kJson = 114, kXml = 142, kFloat4 = 700,
                          kFloat8 = 701, kMoney = 790, kBpchar = 1042, kVarchar = 1043,
                          kDate = 1082, kTime = 1083, kTimestamp = 1114, kTimestamptz = 1184,
                          kInterval = 1186, kTimetz = 1266, kNumeric = 1700, kUuid = 2950,
                          kJsonb = 3802;
}  // namespace pgtype

// Appends the JSON form of one non-null value of type type_oid (the result column's PQftype).
void appendJsonValue(std::string& out, uint32_t type_oid, std::string_view text);

// The element type of a built-in array type (1007 int4[] gives 23), 0 for other types.
uint32_t arrayElementType(uint32_t array_oid);

// "2024-05-01 12:00:00.5+02" gives "2024-05-01T12:00:00.5+02:00" (timestamp, timestamptz; with
// has_date false, timetz: "12:00:00+02" gives "12:00:00+02:00"). Text in any other form (BC,
// infinity, a DateStyle other than ISO) is returned unchanged.
std::string isoDateTime(std::string_view text, bool has_date);

// A bigint or numeric text that a double holds exactly: an integer of at most 2^53 in size, or
// at most 15 significant digits. Written as the normalized decimal ("12.50" gives "12.5") into
// *json_number when it fits.
bool exactInDouble(std::string_view decimal, std::string* json_number);

}  // namespace berth::sqlconsole
