#include "sql_script_reader.hpp"

#include <algorithm>
#include <cstring>

#include "sql_script.hpp"
#include "sql_trivia.hpp"

namespace berth::sqlconsole {
namespace {

// libpg_query reads C strings: this ends buf[0, end) with a NUL for as long as it lives and
// puts the byte back afterwards (no copy of the window).
class NulTerminate {
 public:
  NulTerminate(std::string& buf, size_t end) : buf_(buf), end_(end) {
    if (end_ < buf_.size()) {
      saved_ = buf_[end_];
      buf_[end_] = '\0';
    }
  }
  ~NulTerminate() {
    if (end_ < buf_.size()) buf_[end_] = saved_;
  }
  NulTerminate(const NulTerminate&) = delete;
  NulTerminate& operator=(const NulTerminate&) = delete;

 private:
  std::string& buf_;
  size_t end_;
  char saved_ = 0;
};

bool isLineSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::string statementPrefix(size_t statement, size_t line) {
  return "statement " + std::to_string(statement) + " (line " + std::to_string(line) + "): ";
}

}  // namespace

ScriptReader::ScriptReader(const std::string& path, ScriptReaderOptions options)
    : file_(path, options.maxBytes), options_(options) {
  if (options_.chunkBytes == 0) options_.chunkBytes = 1;
  bufOffset_ = readOffset_ = file_.textStart();
  eof_ = readOffset_ >= file_.size();
}

std::optional<ScriptItem> ScriptReader::next() {
  while (ready_.empty()) {
    if (done_) return std::nullopt;
    if (inCopyData_) {
      fillCopyData();
    } else {
      fillSql();
    }
  }
  ScriptItem item = std::move(ready_.front());
  ready_.pop_front();
  return item;
}

void ScriptReader::advance(size_t to) {
  line_ += countNewlines(std::string_view(buf_).substr(start_, to - start_));
  start_ = to;
}

void ScriptReader::readMore(size_t want) {
  // Keep only what is not consumed yet; offsets into buf_ held by callers are relative to
  // start_, which becomes 0.
  if (start_ > 0) {
    buf_.erase(0, start_);
    bufOffset_ += start_;
    start_ = 0;
  }
  while (!eof_ && buf_.size() < want) {
    const size_t old = buf_.size();
    const uint64_t left = file_.size() - readOffset_;
    const size_t n = static_cast<size_t>(
        std::min<uint64_t>(left, std::max<uint64_t>(options_.chunkBytes, want - buf_.size())));
    const size_t got = file_.readAt(readOffset_, n, buf_);
    // The file was checked whole when opened; a NUL byte now means it changed since, and
    // would silently cut the parser's input short.
    if (std::memchr(buf_.data() + old, '\0', got) != nullptr) {
      throw ScriptError(ScriptError::Kind::Binary, "the file is binary, not a SQL script");
    }
    readOffset_ += got;
    if (got == 0 || readOffset_ >= file_.size()) eof_ = true;
  }
}

void ScriptReader::fillSql() {
  // Whitespace, comments and empty statements before the next statement.
  for (;;) {
    const TriviaEnd trivia = skipTrivia(buf_, start_, true);
    advance(trivia.pos);
    if (trivia.complete && start_ < buf_.size()) break;
    if (eof_) {
      if (trivia.complete) {
        done_ = true;
        return;
      }
      break;  // a comment open at the end of the file: the parser says what is wrong
    }
    grow();  // geometric: a comment of many chunks is not scanned again for every chunk
  }
  // A psql meta-command (\connect, \restrict, ...) is a line of its own, not SQL.
  if (buf_[start_] == '\\') {
    readMetaCommand();
    return;
  }
  if (buf_.size() - start_ < options_.chunkBytes && !eof_) readMore(options_.chunkBytes);
  const size_t limit = windowEnd();
  if (limit == std::string::npos) {
    grow();  // not one whole line yet
    return;
  }
  parseWindow(limit);
}

void ScriptReader::readMetaCommand() {
  size_t eol = buf_.find('\n', start_);
  while (eol == std::string::npos && !eof_) {
    const size_t searched = buf_.size() - start_;
    grow();
    eol = buf_.find('\n', start_ + searched);
  }
  const size_t end = eol == std::string::npos ? buf_.size() : eol;
  size_t text_end = end;
  while (text_end > start_ && isLineSpace(buf_[text_end - 1])) --text_end;
  ScriptItem item;
  item.type = ScriptItem::Type::Skipped;
  item.skip = SkipReason::MetaCommand;
  item.text = buf_.substr(start_, text_end - start_);
  item.line = line_;
  item.offset = bufOffset_ + start_;
  emit(std::move(item));
  advance(eol == std::string::npos ? end : eol + 1);
}

size_t ScriptReader::windowEnd() const {
  if (eof_) return buf_.size();
  // Whole lines only, so no token is cut in two. Preferably up to a line that ends with ';',
  // which is usually a statement's end, so the last statement of the window is whole (only a
  // guess: parseWindow copes when it is not).
  const std::string_view buf(buf_);
  size_t last_newline = std::string::npos;
  for (size_t pos = buf.size(); pos > start_;) {
    const size_t newline = buf.rfind('\n', pos - 1);
    if (newline == std::string_view::npos || newline < start_) break;
    if (last_newline == std::string::npos) last_newline = newline;
    size_t before = newline;
    while (before > start_ && isLineSpace(buf[before - 1])) --before;
    if (before > start_ && buf[before - 1] == ';') return newline + 1;
    pos = newline;
  }
  return last_newline == std::string::npos ? std::string::npos : last_newline + 1;
}

void ScriptReader::parseWindow(size_t limit) {
  const bool to_end_of_file = eof_ && limit == buf_.size();
  const std::string_view window = std::string_view(buf_).substr(start_, limit - start_);
  std::optional<ParseFailure> first_failure;
  size_t end = limit;  // the text parsed is buf_[start_, end)
  for (;;) {
    const std::string_view text = window.substr(0, end - start_);
    ParsedText parsed = [&] {
      NulTerminate nul(buf_, end);
      return ParsedText::parse(text);
    }();
    if (parsed.ok()) {
      if (takeStatements(text, parsed, to_end_of_file && end == limit)) return;
      if (end == limit) {
        if (to_end_of_file) {
          done_ = true;  // nothing but comments left
        } else {
          grow();  // the one statement in the window is not whole yet
        }
        return;
      }
      break;  // cannot happen: a shrunk text ends with a statement's ';'
    }
    if (!first_failure) first_failure = parsed.failure();
    // Take the statements before the failing one first (parse only up to it); the failing one
    // is then looked at again from its own start.
    const StatementStart failing = statementContaining(text, parsed.failure().position);
    if (failing.offset == 0 || failing.offset >= text.size()) break;
    end = start_ + failing.offset;
  }
  // The first statement of the window fails. Cut off by the window end (the parser wanted
  // more, or a quote, dollar quote or comment is still open)? Then read on.
  const bool wants_more = first_failure->position >= trimWhitespaceRight(window, window.size()) ||
                          first_failure->message.starts_with("unterminated");
  if (wants_more && !to_end_of_file) {
    grow();
    return;
  }
  // "At end of input" is counted on the last line with text, not on trailing blank lines.
  const size_t at = std::min(first_failure->position, trimWhitespaceRight(window, window.size()));
  const size_t line = line_ + countNewlines(window.substr(0, at));
  throw ScriptError(ScriptError::Kind::Syntax,
                    statementPrefix(statements_ + 1, line) + first_failure->message,
                    statements_ + 1, line, bufOffset_ + start_ + first_failure->position);
}

bool ScriptReader::takeStatements(std::string_view text, const ParsedText& parsed,
                                  bool to_end_of_file) {
  const size_t base = start_;  // text begins at buf_[base]
  bool took = false;
  for (const ParsedStatement& raw : parsed.statements()) {
    if (!raw.terminated && !to_end_of_file) break;  // may go on after the window
    const size_t begin = base + skipTrivia(text, raw.location).pos;
    const size_t end = base + trimWhitespaceRight(text, raw.location + raw.length);
    // Past the ';' (or to the end of the file).
    const size_t next = base + raw.location + raw.length + (raw.terminated ? 1 : 0);
    took = true;
    if (begin >= end) {
      advance(next);
      continue;
    }
    advance(begin);
    ScriptItem item;
    item.statement = ++statements_;
    item.line = line_;
    item.offset = bufOffset_ + begin;
    item.text = buf_.substr(begin, end - begin);
    item.kind = classifyNode(raw.nodeJson);
    item.skip = importSkip(item.kind);
    item.type =
        item.skip == SkipReason::None ? ScriptItem::Type::Statement : ScriptItem::Type::Skipped;
    const bool copy_in = item.kind.copyFromStdin;
    const size_t statement = item.statement;
    const size_t line = item.line;
    emit(std::move(item));
    advance(next);
    if (copy_in) {
      // What the parser saw after it is data, not SQL.
      enterCopyData(statement, line);
      return true;
    }
  }
  return took;
}

void ScriptReader::enterCopyData(size_t statement, size_t line) {
  copyStatement_ = statement;
  copyLine_ = line;
  inCopyData_ = true;
  copyStarted_ = false;  // checked by the next fill, once the items before are all returned
  atLineStart_ = true;
  strayMarkerLine_ = 0;
}

void ScriptReader::startCopyData() {
  // As in psql, the data starts on the line after the COPY; only blanks or a comment may
  // follow its ';'.
  for (;;) {
    size_t pos = start_;
    while (pos < buf_.size() && isLineSpace(buf_[pos])) ++pos;
    if (pos + 1 < buf_.size() && buf_[pos] == '-' && buf_[pos + 1] == '-') {
      const size_t eol = buf_.find('\n', pos);
      pos = eol == std::string::npos ? buf_.size() : eol;
    }
    if (pos < buf_.size()) {
      if (buf_[pos] != '\n') copyError("its data must start on the next line");
      advance(pos + 1);
      break;
    }
    if (eof_) {
      advance(pos);  // no data at all: fillCopyData reports the missing end line
      break;
    }
    readMore(buf_.size() - start_ + options_.chunkBytes);
  }
  copyStarted_ = true;
}

void ScriptReader::fillCopyData() {
  // Lines up to the one that is exactly "\." (psql's rule; "\.\r" too). Data goes out in pieces
  // of at most chunkBytes, whole lines unless a single line is longer than that, so a huge
  // table never sits in memory whole.
  if (!copyStarted_) startCopyData();
  for (;;) {
    const size_t piece_limit = std::min(buf_.size(), start_ + options_.chunkBytes);
    size_t pos = start_;
    bool at_line_start = atLineStart_;
    bool need_more = false;
    size_t line_begin = start_;  // start of the line pos is in
    while (pos < piece_limit) {
      if (at_line_start && buf_[pos] == '\\') {
        const std::optional<size_t> marker_end = endMarkerAt(pos);
        if (!marker_end) {
          need_more = true;  // "\", "\." or "\.\r" so far: the next bytes decide
          break;
        }
        if (*marker_end != std::string::npos) {
          if (pos > start_) {
            emit({ScriptItem::Type::CopyData,
                  buf_.substr(start_, pos - start_),
                  copyStatement_,
                  line_,
                  bufOffset_ + start_,
                  {},
                  SkipReason::None});
            advance(pos);
          }
          emit({ScriptItem::Type::CopyEnd,
                "\\.",
                copyStatement_,
                line_,
                bufOffset_ + start_,
                {},
                SkipReason::None});
          advance(*marker_end);
          inCopyData_ = false;
          return;
        }
        if (strayMarkerLine_ == 0 && pos + 1 < buf_.size() && buf_[pos + 1] == '.') {
          strayMarkerLine_ =
              line_ + countNewlines(std::string_view(buf_).substr(start_, pos - start_));
        }
      }
      line_begin = pos;
      const void* hit = std::memchr(buf_.data() + pos, '\n', piece_limit - pos);
      if (!hit) {
        at_line_start = false;
        break;
      }
      pos = static_cast<size_t>(static_cast<const char*>(hit) - buf_.data()) + 1;
      line_begin = pos;
      at_line_start = true;
    }
    size_t piece_end = start_;
    bool piece_ends_line = true;
    if (need_more || at_line_start) {
      piece_end = pos;  // whole lines
    } else if (piece_limit == start_ + options_.chunkBytes || eof_) {
      // A full piece (or the rest of the file): whole lines if there are any, else the part of
      // the one long line that fits.
      piece_end = line_begin > start_ ? line_begin : piece_limit;
      piece_ends_line = line_begin > start_;
    } else {
      piece_end = line_begin;  // whole lines; the last one waits for the rest of its bytes
    }
    if (piece_end > start_) {
      emit({ScriptItem::Type::CopyData,
            buf_.substr(start_, piece_end - start_),
            copyStatement_,
            line_,
            bufOffset_ + start_,
            {},
            SkipReason::None});
      advance(piece_end);
      atLineStart_ = piece_ends_line;
      return;
    }
    if (eof_) {
      if (strayMarkerLine_ != 0) {
        copyError("its data does not end with a line \\. (line " +
                  std::to_string(strayMarkerLine_) +
                  " starts with \\. but has more on it; the end line is \\. alone)");
      }
      copyError("its data does not end with a line \\.");
    }
    readMore(buf_.size() - start_ + options_.chunkBytes);
  }
}

std::optional<size_t> ScriptReader::endMarkerAt(size_t pos) const {
  // The byte i after pos: -1 past the end of the file, -2 not read yet.
  const auto at = [&](size_t i) -> int {
    if (pos + i < buf_.size()) return static_cast<unsigned char>(buf_[pos + i]);
    return eof_ ? -1 : -2;
  };
  if (at(1) == -2) return std::nullopt;
  if (at(1) != '.') return std::string::npos;
  const int third = at(2);
  if (third == -2) return std::nullopt;
  if (third == -1) return buf_.size();
  if (third == '\n') return pos + 3;
  if (third != '\r') return std::string::npos;
  const int fourth = at(3);
  if (fourth == -2) return std::nullopt;
  if (fourth == -1) return buf_.size();
  return fourth == '\n' ? std::optional<size_t>(pos + 4) : std::optional<size_t>(std::string::npos);
}

void ScriptReader::copyError(const std::string& problem) const {
  throw ScriptError(ScriptError::Kind::CopyData,
                    statementPrefix(copyStatement_, copyLine_) + "COPY ... FROM stdin: " + problem,
                    copyStatement_, copyLine_, bufOffset_ + start_);
}

}  // namespace berth::sqlconsole
