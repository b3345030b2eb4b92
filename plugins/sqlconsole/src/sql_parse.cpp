#include "sql_parse.hpp"

#include <pg_query.h>

#include <algorithm>
#include <cstring>
#include <string>

#include <berth/common/utf8.hpp>
#include "sql_trivia.hpp"

namespace berth::sqlconsole {
namespace {

// libpg_query's JSON is machine-written and regular; this reads just enough of it to walk the
// statement list (object keys, integers, values skipped whole).
class JsonCursor {
 public:
  explicit JsonCursor(std::string_view json) : s_(json) {}

  void expect(char c) {
    if (i_ >= s_.size() || s_[i_] != c) fail();
    ++i_;
  }
  bool consume(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // A key or string value, raw (keys written by libpg_query never hold escapes).
  std::string_view string() {
    expect('"');
    const size_t start = i_;
    skipStringBody();
    return s_.substr(start, i_ - 1 - start);
  }
  long long integer() {
    const size_t start = i_;
    long long value = 0;
    const bool negative = consume('-');
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') value = value * 10 + (s_[i_++] - '0');
    if (i_ == start + (negative ? 1 : 0)) fail();
    return negative ? -value : value;
  }
  // Skips one value and returns its text.
  std::string_view value() {
    const size_t start = i_;
    if (i_ >= s_.size()) fail();
    const char c = s_[i_];
    if (c == '"') {
      string();
    } else if (c == '{' || c == '[') {
      int depth = 0;
      do {
        const char d = s_[i_++];
        if (d == '"') {
          skipStringBody();
        } else if (d == '{' || d == '[') {
          ++depth;
        } else if (d == '}' || d == ']') {
          --depth;
        }
      } while (depth > 0 && i_ < s_.size());
      if (depth != 0) fail();
    } else {
      while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']') ++i_;
    }
    return s_.substr(start, i_ - start);
  }

 private:
  // From just after an opening quote to just after the closing one.
  void skipStringBody() {
    for (;;) {
      const void* hit = std::memchr(s_.data() + i_, '"', s_.size() - i_);
      if (!hit) fail();
      const size_t quote = static_cast<size_t>(static_cast<const char*>(hit) - s_.data());
      size_t backslashes = 0;
      while (quote - backslashes > i_ && s_[quote - backslashes - 1] == '\\') ++backslashes;
      i_ = quote + 1;
      if (backslashes % 2 == 0) return;  // not escaped
    }
  }
  [[noreturn]] void fail() const {
    throw std::runtime_error("unexpected parse tree JSON from libpg_query at byte " +
                             std::to_string(i_));
  }

  std::string_view s_;
  size_t i_ = 0;
};

// pg_query_split_result, freed whatever happens.
class SplitResult {
 public:
  explicit SplitResult(PgQuerySplitResult r) : r_(r) {}
  ~SplitResult() { pg_query_free_split_result(r_); }
  SplitResult(const SplitResult&) = delete;
  SplitResult& operator=(const SplitResult&) = delete;
  const PgQuerySplitResult* operator->() const { return &r_; }

 private:
  PgQuerySplitResult r_;
};

}  // namespace

struct ParsedText::Owned {
  explicit Owned(PgQueryParseResult r) : result(r) {}
  ~Owned() { pg_query_free_parse_result(result); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  PgQueryParseResult result;
};

ParsedText::ParsedText(ParsedText&&) noexcept = default;
ParsedText& ParsedText::operator=(ParsedText&&) noexcept = default;
ParsedText::~ParsedText() = default;

ParsedText ParsedText::parse(std::string_view text) {
  ParsedText out;
  out.owned_ = std::make_unique<Owned>(pg_query_parse(text.data()));
  const PgQueryParseResult& r = out.owned_->result;
  if (r.error) {
    // cursorpos counts characters from 1; 0 means the parser gave no position.
    const size_t chars = r.error->cursorpos > 0 ? static_cast<size_t>(r.error->cursorpos - 1) : 0;
    out.failure_ = ParseFailure{r.error->message ? r.error->message : "syntax error",
                                common::utf8ByteOffset(text, chars)};
    return out;
  }
  // {"version":N,"stmts":[{"stmt":{...},"stmt_location":N,"stmt_len":N},...]}; zero-valued
  // fields are left out.
  JsonCursor json(r.parse_tree);
  json.expect('{');
  do {
    const std::string_view key = json.string();
    json.expect(':');
    if (key != "stmts") {
      json.value();
      continue;
    }
    json.expect('[');
    if (json.consume(']')) continue;
    do {
      ParsedStatement statement;
      long long length = 0;
      json.expect('{');
      do {
        const std::string_view field = json.string();
        json.expect(':');
        if (field == "stmt") {
          statement.nodeJson = json.value();
        } else if (field == "stmt_location") {
          statement.location = static_cast<size_t>(json.integer());
        } else if (field == "stmt_len") {
          length = json.integer();
        } else {
          json.value();
        }
      } while (json.consume(','));
      json.expect('}');
      // stmt_len 0: the last statement, running to the end of the text without a ';'.
      statement.terminated = length != 0;
      statement.length =
          length != 0 ? static_cast<size_t>(length) : text.size() - statement.location;
      out.statements_.push_back(statement);
    } while (json.consume(','));
    json.expect(']');
  } while (json.consume(','));
  json.expect('}');
  return out;
}

StatementStart statementContaining(std::string_view text, size_t position) {
  position = std::min(position, text.size());
  std::string prefix(text.substr(0, position));  // NUL-terminated copy
  std::optional<SplitResult> scanned;
  scanned.emplace(pg_query_split_with_scanner(prefix.c_str()));
  // On error n_stmts may be set while stmts is not: never read them then. The scanner fails when
  // the prefix cuts a quoted string or comment in two (the error was inside it); that token
  // starts where the scanner says, in the failing statement, so scan up to there instead.
  while ((*scanned)->error) {
    const int cursor = (*scanned)->error->cursorpos;
    const size_t cut =
        cursor > 0 ? common::utf8ByteOffset(prefix, static_cast<size_t>(cursor - 1)) : 0;
    if (cut == 0 || cut >= prefix.size()) return {};
    prefix.resize(cut);
    scanned.emplace(pg_query_split_with_scanner(prefix.c_str()));
  }
  const SplitResult& split = *scanned;
  // A statement starts just after a ';'. One that would start at the very end of the text
  // (after its last ';') cannot hold an error "at end of input": that ';' did not end a
  // statement for the parser (it was inside BEGIN ATOMIC ... END, which the scanner does not
  // know), so the failing statement starts earlier.
  const size_t text_end = trimWhitespaceRight(text, text.size());
  StatementStart start;
  size_t ended = 0;
  for (int i = 0; i < split->n_stmts; ++i) {
    const auto location = static_cast<size_t>(split->stmts[i]->stmt_location);
    const auto end = location + static_cast<size_t>(split->stmts[i]->stmt_len);
    if (location < text_end) start = {location, ended};
    if (end < prefix.size() && prefix[end] == ';') {
      ++ended;
      if (end + 1 < text_end) start = {end + 1, ended};
    }
  }
  return start;
}

std::string_view firstJsonKey(std::string_view object_json) {
  JsonCursor json(object_json);
  json.expect('{');
  return json.string();
}

}  // namespace berth::sqlconsole
