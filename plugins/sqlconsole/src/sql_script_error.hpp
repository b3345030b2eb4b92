// Why an import script cannot be run. what() is the sentence for the person importing; kind()
// lets the route pick the status (TooLarge is 413, everything else 400).
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace berth::sqlconsole {

class ScriptError : public std::runtime_error {
 public:
  enum class Kind {
    Empty,          // "the file is empty" (no bytes, or only whitespace)
    TooLarge,       // "the file is over 256 MB"
    Sqlite,         // "the file is a SQLite database, not a SQL script"
    PgDumpArchive,  // "the file is a pg_dump archive, not a SQL script (...)"
    Binary,         // "the file is binary, not a SQL script" (a NUL byte)
    NotUtf8,        // "the file is not UTF-8 text (invalid byte at offset N)"
    Syntax,         // "statement N (line L): <PostgreSQL's message>"
    CopyData,       // "statement N (line L): ..." about COPY ... FROM stdin data
    Io,             // "the file cannot be read: ..."
  };

  ScriptError(Kind kind, std::string message, size_t statement = 0, size_t line = 0,
              uint64_t offset = 0)
      : std::runtime_error(std::move(message)),
        kind_(kind),
        statement_(statement),
        line_(line),
        offset_(offset) {}

  Kind kind() const { return kind_; }
  size_t statement() const { return statement_; }  // 1-based; 0 when not about a statement
  size_t line() const { return line_; }            // 1-based; 0 when not about a place
  uint64_t offset() const { return offset_; }      // byte offset in the file of the problem

 private:
  Kind kind_;
  size_t statement_;
  size_t line_;
  uint64_t offset_;
};

}  // namespace berth::sqlconsole
