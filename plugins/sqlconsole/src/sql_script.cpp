#include "sql_script.hpp"

#include <algorithm>

#include <berth/common/utf8.hpp>
#include "sql_trivia.hpp"

namespace berth::sqlconsole {

namespace {

// Statements of a text that parsed, empty ones (";;", only comments) not counted.
size_t nonEmptyStatements(std::string_view text, const ParsedText& parsed) {
  size_t n = 0;
  for (const ParsedStatement& raw : parsed.statements())
    if (skipTrivia(text, raw.location).pos < trimWhitespaceRight(text, raw.location + raw.length))
      ++n;
  return n;
}

// The 1-based number of the statement in which text (which does not parse) fails. The scanner
// finds where the failing statement starts but counts every ';' before it, also those inside
// BEGIN ATOMIC and CREATE RULE bodies; so the statements before it are counted by the parser,
// taking whole statements from the front as ScriptReader does: parse up to where the scanner
// says the failing one starts, and when that cut falls inside a body (the parse fails too),
// cut earlier.
size_t failingStatement(std::string_view text) {
  size_t taken = 0;
  size_t pos = 0;
  for (;;) {
    const std::string_view rest = text.substr(pos);
    size_t end = rest.size();
    bool took = false;
    for (;;) {
      const std::string part(rest.substr(0, end));  // NUL-terminated
      const ParsedText parsed = ParsedText::parse(part);
      if (parsed.ok()) {
        taken += nonEmptyStatements(part, parsed);
        took = end < rest.size();
        break;
      }
      const StatementStart failing = statementContaining(part, parsed.failure().position);
      if (failing.offset == 0 || failing.offset >= end) break;
      end = failing.offset;
    }
    if (!took) return taken + 1;
    pos += end;
  }
}

}  // namespace

SqlSyntaxError syntaxError(std::string_view text, const ParseFailure& failure) {
  const size_t position = std::min(failure.position, text.size());
  // "At end of input" is counted on the last line with text, not on trailing blank lines.
  const size_t at = std::min(position, trimWhitespaceRight(text, text.size()));
  return SqlSyntaxError(failure.message, position, 1 + countNewlines(text.substr(0, at)),
                        failingStatement(text));
}

std::vector<Statement> splitStatements(std::string_view sql) {
  // libpg_query reads a C string: a NUL byte would silently end the text early.
  if (const size_t nul = sql.find('\0'); nul != std::string_view::npos) {
    throw SqlSyntaxError("the SQL contains a NUL byte", nul, 1 + countNewlines(sql.substr(0, nul)),
                         0);
  }
  // Error positions are converted from characters to bytes, which needs valid UTF-8.
  if (const auto bad = common::firstInvalidUtf8(sql)) {
    throw SqlSyntaxError("the SQL is not UTF-8 text", *bad, 1 + countNewlines(sql.substr(0, *bad)),
                         0);
  }
  const std::string text(sql);  // NUL-terminated
  const ParsedText parsed = ParsedText::parse(text);
  if (!parsed.ok()) throw syntaxError(sql, parsed.failure());

  std::vector<Statement> out;
  out.reserve(parsed.statements().size());
  size_t line = 1;
  size_t counted = 0;  // line is the line of byte `counted`
  for (const ParsedStatement& raw : parsed.statements()) {
    const size_t begin = skipTrivia(sql, raw.location).pos;
    const size_t end = trimWhitespaceRight(sql, raw.location + raw.length);
    if (begin >= end) continue;
    line += countNewlines(sql.substr(counted, begin - counted));
    counted = begin;
    out.push_back(Statement{std::string(sql.substr(begin, end - begin)), begin, line,
                            classifyNode(raw.nodeJson)});
  }
  return out;
}

}  // namespace berth::sqlconsole
