// Reading an import script (docs/openapi.yaml, POST /projects/{name}/import) one item at a time
// from the file the edge spooled it to, so a 256 MB script is never held whole in memory:
// statements (split and classified by libpg_query), the lines /import leaves out, and the
// inline data of COPY ... FROM stdin.
//
// How statements are found in a stream: the file is read in chunks; libpg_query parses a
// window of whole lines; a statement counts only once a ';' after it was parsed (or the file
// ended), so one cut off by the window waits for more text. Where the parser fails, the
// statements before the failing one are taken (libpg_query's scanner tells where it starts)
// and the failing one is looked at again from its start: it may be a psql backslash line or
// the data after a COPY, which are handled before parsing; otherwise it is a syntax error, or
// (if it runs to the end of the window) it needs more text.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "sql_classify.hpp"
#include "sql_parse.hpp"
#include "sql_script_error.hpp"
#include "sql_script_file.hpp"

namespace berth::sqlconsole {

struct ScriptReaderOptions {
  uint64_t maxBytes = uint64_t{256} << 20;  // larger files are refused (ScriptError::TooLarge)
  // Read size, the usual parse window and the largest COPY data item. Small windows parse
  // faster (libpg_query's memory stays in cache): 64 KB measured ~30% faster than 1 MB.
  size_t chunkBytes = size_t{64} << 10;
};

struct ScriptItem {
  enum class Type {
    Statement,  // run text; when kind.copyFromStdin, CopyData items and a CopyEnd follow
    Skipped,    // left out (skip says why): a psql backslash line or a skipped statement
    CopyData,   // the next piece of a COPY's data (whole lines unless one line is longer than
                // chunkBytes), as PQputCopyData takes it; at most chunkBytes
    CopyEnd,    // the data ended with its "\." line (PQputCopyEnd)
  };
  Type type = Type::Statement;
  std::string text;      // statement: trimmed, no ';'; backslash line: without its newline
  size_t statement = 0;  // 1-based number among the script's SQL statements (skipped ones
                         // count; backslash lines do not and have 0); COPY data: its COPY's
  size_t line = 0;       // 1-based line where the item starts
  uint64_t offset = 0;   // byte offset in the file where the item starts
  Classification kind;   // statements, run or skipped
  SkipReason skip = SkipReason::None;
};

class ScriptReader {
 public:
  // Opens and checks the whole file (ScriptFile); throws ScriptError.
  explicit ScriptReader(const std::string& path, ScriptReaderOptions options = {});

  // The next item, nullopt at the end of the script. Throws ScriptError (Syntax, CopyData, Io)
  // at the item that cannot be read; the items before it were all returned.
  std::optional<ScriptItem> next();

  size_t statementsSeen() const { return statements_; }
  uint64_t fileSize() const { return file_.size(); }

 private:
  void fillSql();
  void fillCopyData();
  void readMetaCommand();
  void parseWindow(size_t limit);
  bool takeStatements(std::string_view parsed_text, const ParsedText& parsed, bool to_end_of_file);
  void enterCopyData(size_t statement, size_t line);
  void startCopyData();
  size_t windowEnd() const;
  void readMore(size_t want);
  void grow() { readMore(std::max(options_.chunkBytes, 2 * (buf_.size() - start_))); }
  void advance(size_t to);
  void emit(ScriptItem item) { ready_.push_back(std::move(item)); }
  // Is the line at pos (which starts with a backslash) COPY's end marker "\." (or "\.\r")?
  // Where the marker line ends if so, npos if not, nullopt when the bytes read cannot tell yet.
  std::optional<size_t> endMarkerAt(size_t pos) const;
  [[noreturn]] void copyError(const std::string& problem) const;

  ScriptFile file_;
  ScriptReaderOptions options_;
  std::string buf_;          // file bytes [bufOffset_, readOffset_)
  size_t start_ = 0;         // first unconsumed byte in buf_
  uint64_t bufOffset_ = 0;   // file offset of buf_[0]
  uint64_t readOffset_ = 0;  // next byte to read from the file
  bool eof_ = false;         // the whole file is in buf_ or consumed
  size_t line_ = 1;          // line of buf_[start_]
  size_t statements_ = 0;
  std::deque<ScriptItem> ready_;
  bool done_ = false;

  bool inCopyData_ = false;
  bool atLineStart_ = true;  // buf_[start_] begins a line of COPY data
  // The COPY's own line was checked (only blanks or a comment after its ';'). Not done when the
  // COPY is found, so that a refusal comes after the statements before it were returned.
  bool copyStarted_ = true;
  size_t copyStatement_ = 0;
  size_t copyLine_ = 0;
  // The first line of the current COPY data that starts with \. but has more on it: data in
  // CSV, a corrupt end marker in text (the server says so at the end of the data). Named when
  // the file ends without the end line, since that is most likely the end line meant.
  size_t strayMarkerLine_ = 0;
};

}  // namespace berth::sqlconsole
