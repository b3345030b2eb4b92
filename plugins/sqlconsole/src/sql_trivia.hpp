// What lies between SQL statements: whitespace and comments. libpg_query finds the statements;
// these helpers only trim a statement's leading comments and, in a script, find where the next
// statement or psql meta-command line begins. They follow PostgreSQL's scanner (scan.l):
// whitespace is [ \t\n\r\f] (version 15, as libpg_query: no \v), "--" runs to the end of the
// line, /* */ comments nest.
#pragma once
#include <cstddef>
#include <string_view>

namespace berth::sqlconsole {

struct TriviaEnd {
  size_t pos = 0;        // first byte that is not whitespace or comment (text.size() at the end)
  bool complete = true;  // false when text ends inside a comment (or with half of "--" / "/*"):
                         // pos is then where that comment starts, and more text decides
};

// Skips whitespace and comments from pos. With skip_semicolons, also empty statements (";").
TriviaEnd skipTrivia(std::string_view text, size_t pos, bool skip_semicolons = false);

// The end of text[0, end) without trailing whitespace.
size_t trimWhitespaceRight(std::string_view text, size_t end);

// Number of '\n' bytes in text (line numbers advance by it).
size_t countNewlines(std::string_view text);

}  // namespace berth::sqlconsole
