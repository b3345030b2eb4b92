// JSON written straight into a string, for answers and exports whose size makes a DOM wasteful
// (a /query answer of 500 rows, a JSON export of a whole database). The output is always valid
// JSON, whatever bytes come in.
#pragma once
#include <string>
#include <string_view>

namespace berth::sqlconsole {

// Appends text as a JSON string literal, quotes included. Control characters are escaped; bytes
// that are not valid UTF-8 (a SQL_ASCII database can hold any) become U+FFFD, so the result is
// valid JSON and valid UTF-8.
void appendJsonString(std::string& out, std::string_view text);

}  // namespace berth::sqlconsole
