// PostgreSQL's own parser (libpg_query) behind a small C++ face: every result is owned by an
// object that frees it, positions come back as byte offsets, and the statements of a parse are
// read from libpg_query's JSON without building a DOM (a 1 MB script gives ~6 MB of JSON).
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace berth::sqlconsole {

// The parser refused the SQL. what() is PostgreSQL's message, e.g. `syntax error at or near
// "FROM"`.
class SqlSyntaxError : public std::runtime_error {
 public:
  SqlSyntaxError(std::string message, size_t position, size_t line, size_t statement)
      : std::runtime_error(std::move(message)),
        position_(position),
        line_(line),
        statement_(statement) {}
  size_t position() const { return position_; }    // byte offset in the text given
  size_t line() const { return line_; }            // 1-based line of that byte
  size_t statement() const { return statement_; }  // 1-based number of the statement it is in

 private:
  size_t position_;
  size_t line_;
  size_t statement_;
};

// One statement as the parser saw it. Offsets are bytes into the parsed text; the range starts
// right after the previous ';' (so it may begin with whitespace and comments) and excludes the
// ';' that ends it.
struct ParsedStatement {
  size_t location = 0;
  size_t length = 0;
  bool terminated = false;    // a ';' follows (false only for a last statement without one)
  std::string_view nodeJson;  // stmts[i].stmt, e.g. {"CreateStmt":{...}}; valid while the
                              // ParsedText lives
};

// The parser's error, positions already in bytes.
struct ParseFailure {
  std::string message;
  size_t position = 0;  // byte offset; text.size() for "at end of input"
};

// The result of parsing one text: statements or the error. Owns libpg_query's result.
class ParsedText {
 public:
  // text must be followed by a NUL byte in memory (text.data()[text.size()] == 0) and hold no
  // NUL byte itself; libpg_query reads C strings.
  static ParsedText parse(std::string_view text);

  ParsedText(ParsedText&&) noexcept;
  ParsedText& operator=(ParsedText&&) noexcept;
  ~ParsedText();

  bool ok() const { return !failure_; }
  const ParseFailure& failure() const { return *failure_; }
  const std::vector<ParsedStatement>& statements() const { return statements_; }

 private:
  ParsedText() = default;
  struct Owned;
  std::unique_ptr<Owned> owned_;  // the pg_query result the string_views point into
  std::optional<ParseFailure> failure_;
  std::vector<ParsedStatement> statements_;
};

// Where the statement that contains byte `position` of text begins, judged by libpg_query's
// scanner on the text before that byte (the parser gives no positions when it fails): just
// after the last top-level ';' before it, or 0. Also gives how many statements end before it.
struct StatementStart {
  size_t offset = 0;
  size_t statementsBefore = 0;
};
StatementStart statementContaining(std::string_view text, size_t position);

// The first key of a JSON object's text ({"CreateStmt":{...}} gives CreateStmt).
std::string_view firstJsonKey(std::string_view object_json);

}  // namespace berth::sqlconsole
