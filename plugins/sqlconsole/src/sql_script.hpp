// Splitting a SQL text held in memory (a /sql, /query or /batch request) into statements with
// PostgreSQL's own parser: comments, quotes, E'' strings, dollar-quoted bodies and BEGIN ATOMIC
// bodies are its business, never guessed at here. The streaming counterpart for imports is
// ScriptReader (sql_script_reader.hpp).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sql_classify.hpp"
#include "sql_parse.hpp"

namespace berth::sqlconsole {

struct Statement {
  std::string text;   // without leading whitespace and comments, trailing whitespace and ';'
  size_t offset = 0;  // byte offset of text in the input
  size_t line = 0;    // 1-based line of that byte
  Classification kind;
};

// All statements of sql, in order; empty statements (";;", only comments) are not listed. The
// whole text is parsed first, so a syntax error anywhere throws SqlSyntaxError before any
// statement is returned: its message is PostgreSQL's, with the byte position, line and number
// of the statement it is in. A NUL byte or invalid UTF-8 is refused the same way (messages "the
// SQL contains a NUL byte" and "the SQL is not UTF-8 text").
std::vector<Statement> splitStatements(std::string_view sql);

// Turns a parse failure of text into the exception above (also used by ScriptReader).
SqlSyntaxError syntaxError(std::string_view text, const ParseFailure& failure);

}  // namespace berth::sqlconsole
