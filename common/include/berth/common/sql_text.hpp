// Text for and from PostgreSQL: identifiers spliced into SQL, and libpq's error messages made
// fit to show.
#pragma once
#include <string>
#include <string_view>

namespace berth::common {

// name as a quoted SQL identifier: in double quotes, each " doubled ("a""b" for a"b). What
// PQescapeIdentifier gives for UTF-8 text, without needing a connection. Values are never
// spliced: they are bound as parameters.
std::string quotedIdentifier(std::string_view name);

// A libpq message (PQerrorMessage, PQresultErrorMessage, a notice) without the newline and
// spaces it ends with, kept otherwise as libpq wrote it; "" for a null pointer.
std::string pqMessage(const char* message);

// pqMessage without the "ERROR:  " severity prefix PQresultErrorMessage puts first (for
// messages shown to a person who wrote the SQL).
std::string pqMessageWithoutSeverity(const char* message);

}  // namespace berth::common
