// fuzz-link: berth_sqlconsole_logic berth::common
//
// The SQL script splitters: ScriptReader (an /import file, read in chunks through a moving parse
// window, with psql meta-command lines and COPY ... FROM stdin data) against splitStatements
// (the whole text at once, /sql and /query) and libpg_query's own splitters.
//
// Input: one byte choosing the reader's chunk size (1..64 bytes, or the default 64 KB), then the
// script. Checks:
// - chunks: the reader gives the same items (COPY data joined: its pieces depend on the chunk
//   size, and each is at most one chunk) and the same error with the chosen chunk size as with
//   the default;
// - where the script has no COPY data and no meta-command (libpg_query knows neither), the
//   reader's statements are exactly splitStatements' (text, offset, line, kind), and both
//   refuse the same scripts with the same message, statement and line; splitStatements' are
//   the non-empty statements of pg_query_split_with_parser, trimmed of comments and blanks,
//   and of pg_query_split_with_scanner too, except for scripts with BEGIN ATOMIC bodies or
//   CREATE RULE actions (the scanner splits at their inner ';', the parser does not: words
//   "atomic" and "rule" leave the scanner out);
// - always, on the reader's own items: in order; each one's text is the input's bytes at its
//   offset and its line is the line of that offset; what lies between items is whitespace,
//   comments and ';' only; statement numbers count up by one; a COPY's data is exactly the
//   lines after it up to the "\." line, and it ends on a line end.
// Refusals must be ScriptError (reader) or SqlSyntaxError (splitStatements); anything else
// escapes.
#include <pg_query.h>
#include <unistd.h>
#include <berth/common/utf8.hpp>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "sql_script.hpp"
#include "sql_script_reader.hpp"
#include "sql_trivia.hpp"
#include "support/fuzz_check.hpp"

using namespace berth::sqlconsole;

namespace {

constexpr size_t kMaxInput = 8192;

struct Read {
  std::vector<ScriptItem> items;  // CopyData pieces joined into one item per COPY
  std::optional<ScriptError> error;
};

std::string describe(const ScriptItem& item) {
  return std::to_string(static_cast<int>(item.type)) + " #" + std::to_string(item.statement) +
         " line " + std::to_string(item.line) + " @" + std::to_string(item.offset) + " [" +
         item.kind.node + "] " + item.text;
}

std::string describe(const Read& read) {
  std::string out;
  for (const ScriptItem& item : read.items) out += describe(item) + "\n";
  if (read.error) out += "error: " + std::string(read.error->what()) + "\n";
  return out;
}

bool same(const ScriptItem& a, const ScriptItem& b) {
  return a.type == b.type && a.text == b.text && a.statement == b.statement && a.line == b.line &&
         a.offset == b.offset && a.kind.node == b.kind.node && a.skip == b.skip &&
         a.kind.copyFromStdin == b.kind.copyFromStdin;
}

bool same(const Read& a, const Read& b) {
  if (a.items.size() != b.items.size()) return false;
  for (size_t i = 0; i < a.items.size(); ++i)
    if (!same(a.items[i], b.items[i])) return false;
  if (a.error.has_value() != b.error.has_value()) return false;
  return !a.error || (a.error->kind() == b.error->kind() &&
                      std::string_view(a.error->what()) == b.error->what() &&
                      a.error->statement() == b.error->statement() &&
                      a.error->line() == b.error->line() && a.error->offset() == b.error->offset());
}

Read readScript(const std::string& path, size_t chunk) {
  Read out;
  try {
    ScriptReader reader(path, {uint64_t{1} << 20, chunk});
    while (std::optional<ScriptItem> item = reader.next()) {
      if (item->type == ScriptItem::Type::CopyData) {
        berth::fuzz::check(!item->text.empty() && item->text.size() <= chunk,
                           "a COPY data piece that is empty or larger than a chunk",
                           describe(*item));
        if (!out.items.empty() && out.items.back().type == ScriptItem::Type::CopyData) {
          ScriptItem& last = out.items.back();
          berth::fuzz::check(last.offset + last.text.size() == item->offset,
                             "COPY data pieces that do not follow each other", describe(*item));
          last.text += item->text;
          continue;
        }
      }
      out.items.push_back(std::move(*item));
    }
  } catch (const ScriptError& e) {
    out.error = e;
  }
  return out;
}

size_t lineAt(std::string_view text, size_t offset) {
  return 1 + countNewlines(text.substr(0, offset));
}

// Only whitespace, comments and ';' between items (a "--" comment may end the script).
void checkGap(std::string_view script, size_t from, size_t to, const std::string& where) {
  const std::string gap(script.substr(from, to - from));
  const TriviaEnd end = skipTrivia(to == script.size() ? gap + "\n" : gap, 0, true);
  berth::fuzz::check(end.complete && end.pos >= gap.size(),
                     "bytes between items that are not whitespace, comments or ';'",
                     where + "\ngap: " + gap);
}

// The reader's own promises, whatever the script holds. offsets are file offsets: script is
// the file's whole text.
void checkOwnItems(std::string_view script, const Read& read) {
  size_t at = script.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // end of the previous item
  size_t statements = 0;
  const ScriptItem* copy = nullptr;  // the COPY whose data comes next
  for (const ScriptItem& item : read.items) {
    const std::string what = describe(item) + "\n---\n" + describe(read);
    berth::fuzz::check(item.offset >= at && item.offset <= script.size(),
                       "an item out of order or outside the script", what);
    berth::fuzz::check(item.line == lineAt(script, item.offset),
                       "an item's line is not the line of its offset", what);
    const std::string_view here = script.substr(item.offset);
    switch (item.type) {
      case ScriptItem::Type::Statement:
      case ScriptItem::Type::Skipped:
        berth::fuzz::check(copy == nullptr, "a statement inside COPY data", what);
        checkGap(script, at, item.offset, what);
        berth::fuzz::check(here.starts_with(item.text), "an item's text is not the input's", what);
        if (item.skip == SkipReason::MetaCommand) {
          berth::fuzz::check(item.statement == 0 && item.text.starts_with("\\"),
                             "a meta-command that is not a backslash line", what);
          berth::fuzz::check(item.text.find('\n') == std::string::npos,
                             "a meta-command of more than one line", what);
        } else {
          berth::fuzz::check(item.statement == ++statements, "statement numbers skip", what);
          berth::fuzz::check(
              !item.text.empty() && skipTrivia(item.text, 0).pos == 0 &&
                  trimWhitespaceRight(item.text, item.text.size()) == item.text.size(),
              "a statement not trimmed of comments and blanks", what);
        }
        at = item.offset + item.text.size();
        // A meta-command's text leaves out the blanks that end its line (\v too, which is not
        // whitespace between statements).
        if (item.skip == SkipReason::MetaCommand)
          while (at < script.size() &&
                 std::string_view(" \t\r\f\v").find(script[at]) != std::string_view::npos)
            ++at;
        // A last COPY before an error: the error is about the rest of its line or its data.
        if (read.error && &item == &read.items.back()) return;
        if (item.kind.copyFromStdin && item.skip == SkipReason::None) {
          copy = &item;
          // The rest of the COPY's line, as psql reads lines (to a '\n'): comments and its ';',
          // then blanks and maybe a "--" comment running to the '\n' (a lone '\r' ends no line
          // here, though it ends a comment for PostgreSQL's scanner), then its newline.
          const size_t semicolon = at + skipTrivia(script.substr(at), 0).pos;
          const size_t eol = script.find('\n', semicolon);
          berth::fuzz::check(eol != std::string_view::npos || read.error,
                             "a COPY without a line end after it, without an error", what);
          if (eol == std::string_view::npos) return;  // the error is about it
          berth::fuzz::check(script[semicolon] == ';', "a COPY not ended by ';'", what);
          size_t pos = semicolon + 1;
          while (pos < eol &&
                 std::string_view(" \t\r\f\v").find(script[pos]) != std::string_view::npos)
            ++pos;
          berth::fuzz::check(pos == eol || script.substr(pos).starts_with("--"),
                             "COPY data on the COPY's own line", what);
          at = eol + 1;
        }
        break;
      case ScriptItem::Type::CopyData:
        berth::fuzz::check(copy != nullptr && item.statement == copy->statement,
                           "COPY data without its COPY", what);
        berth::fuzz::check(item.offset == at, "COPY data does not start on the COPY's next line",
                           what);
        berth::fuzz::check(here.starts_with(item.text), "COPY data is not the input's", what);
        at = item.offset + item.text.size();
        break;
      case ScriptItem::Type::CopyEnd: {
        berth::fuzz::check(copy != nullptr && item.statement == copy->statement,
                           "a COPY end without its COPY", what);
        berth::fuzz::check(item.offset == at, "the COPY end is not right after its data", what);
        berth::fuzz::check(
            here.starts_with("\\.") && (here.size() == 2 || here[2] == '\n' ||
                                        (here[2] == '\r' && (here.size() == 3 || here[3] == '\n'))),
            "the COPY end is not a \\. line", what);
        // The data (if any) is whole lines, none of them the end marker.
        const ScriptItem* data = &item - 1;
        if (data->type == ScriptItem::Type::CopyData) {
          const std::string& text = data->text;
          berth::fuzz::check(text.back() == '\n', "COPY data that does not end a line", what);
          for (size_t line = 0; line < text.size();) {
            const size_t eol = text.find('\n', line);
            const std::string_view row = std::string_view(text).substr(line, eol - line);
            berth::fuzz::check(row != "\\." && row != "\\.\r", "COPY data holds its end line",
                               what);
            line = eol + 1;
          }
        }
        at = std::min(script.size(), item.offset + (here.size() > 2 && here[2] == '\r' ? 3 : 2));
        if (at < script.size() && script[at] == '\n') ++at;
        copy = nullptr;
        break;
      }
    }
  }
  if (!read.error) {
    berth::fuzz::check(copy == nullptr, "a COPY whose data never ended, without an error",
                       describe(read));
    checkGap(script, at, script.size(), "after the last item\n" + describe(read));
  }
}

std::string trimmed(std::string_view text) {
  const size_t begin = skipTrivia(text, 0).pos;
  const size_t end = trimWhitespaceRight(text, text.size());
  return begin < end ? std::string(text.substr(begin, end - begin)) : std::string();
}

// libpg_query's statements, trimmed, empty ones left out; nullopt when it refuses.
std::optional<std::vector<std::string>> pgSplit(const std::string& text, bool parser) {
  PgQuerySplitResult r =
      parser ? pg_query_split_with_parser(text.c_str()) : pg_query_split_with_scanner(text.c_str());
  std::optional<std::vector<std::string>> out;
  if (!r.error) {
    out.emplace();
    for (int i = 0; i < r.n_stmts; ++i) {
      const std::string piece =
          trimmed(std::string_view(text).substr(static_cast<size_t>(r.stmts[i]->stmt_location),
                                                static_cast<size_t>(r.stmts[i]->stmt_len)));
      if (!piece.empty()) out->push_back(piece);
    }
  }
  pg_query_free_split_result(r);
  return out;
}

bool containsWord(std::string_view text, std::string_view word) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find(word) != std::string::npos;
}

// Where the reader met no COPY data and no meta-command: it must split as the whole text does.
void compareWithWholeText(std::string_view script, const Read& read) {
  const size_t bom = script.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  const std::string_view text = script.substr(bom);
  std::vector<Statement> statements;
  std::optional<SqlSyntaxError> refusal;
  try {
    statements = splitStatements(text);
  } catch (const SqlSyntaxError& e) {
    refusal = e;
  }
  const std::string both = describe(read) + "---\n" + std::string(script);
  if (read.error && read.error->kind() != ScriptError::Kind::Syntax) {
    // The file checks come first; the whole-text split refuses NUL and bad UTF-8 the same way.
    const ScriptError::Kind kind = read.error->kind();
    if (kind == ScriptError::Kind::Binary || kind == ScriptError::Kind::NotUtf8)
      berth::fuzz::check(refusal.has_value(), "the reader refuses a file splitStatements takes",
                         both);
    return;
  }
  berth::fuzz::check(read.error.has_value() == refusal.has_value(),
                     "the reader and splitStatements disagree on whether the SQL parses",
                     both + "\n---\n" + (refusal ? refusal->what() : "splitStatements: ok"));
  if (refusal) {
    const std::string expected = "statement " + std::to_string(refusal->statement()) + " (line " +
                                 std::to_string(refusal->line()) + "): " + refusal->what();
    berth::fuzz::check(expected == read.error->what(),
                       "the reader and splitStatements refuse with different errors",
                       expected + "\n" + both);
    return;
  }
  berth::fuzz::check(statements.size() == read.items.size(),
                     "the reader and splitStatements find different statements", both);
  for (size_t i = 0; i < statements.size(); ++i) {
    const Statement& s = statements[i];
    const ScriptItem& item = read.items[i];
    berth::fuzz::check(s.text == item.text && s.offset + bom == item.offset &&
                           s.line == item.line && s.kind.node == item.kind.node,
                       "the reader and splitStatements differ on a statement",
                       std::to_string(i) + ": " + s.text + "\n" + both);
  }

  const std::string whole(text);
  std::vector<std::string> texts;
  for (const Statement& s : statements) texts.push_back(s.text);
  const auto parser = pgSplit(whole, true);
  berth::fuzz::check(parser && *parser == texts,
                     "splitStatements differs from pg_query_split_with_parser", both);
  if (containsWord(whole, "atomic") || containsWord(whole, "rule")) return;
  const auto scanner = pgSplit(whole, false);
  berth::fuzz::check(scanner && *scanner == texts,
                     "splitStatements differs from pg_query_split_with_scanner", both);
}

// The file check's UTF-8 validator, fed in pieces of `chunk` bytes, finds what a check of the
// whole text finds; a file that is not UTF-8 is refused at that offset (NUL bytes, which win,
// aside).
void checkUtf8(const std::string& script, size_t chunk, const Read& read) {
  berth::common::Utf8Validator validator;
  for (size_t at = 0; at < script.size(); at += chunk)
    validator.feed(std::string_view(script).substr(at, chunk));
  validator.finish();
  const std::optional<size_t> whole = berth::common::firstInvalidUtf8(script);
  const std::optional<uint64_t> pieces = validator.firstInvalid();
  berth::fuzz::check(
      pieces.has_value() == whole.has_value() && (!whole || *pieces == *whole),
      "the UTF-8 validator fed in pieces differs from the whole-text check",
      std::to_string(whole.value_or(0)) + " vs " + std::to_string(pieces.value_or(0)));
  if (script.find('\0') != std::string::npos) return;
  if (read.error && read.error->kind() == ScriptError::Kind::PgDumpArchive) return;  // first
  const bool refused = read.error && read.error->kind() == ScriptError::Kind::NotUtf8;
  berth::fuzz::check(refused == whole.has_value() && (!whole || read.error->offset() == *whole),
                     "the reader's UTF-8 refusal is not at the first invalid byte", describe(read));
}

const std::string& scriptPath() {
  static const std::string path =
      "/tmp/berth-fuzz-sql-script-" + std::to_string(::getpid()) + ".sql";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > kMaxInput) return 0;
  const size_t chunk = data[0] >= 0xC0 ? (size_t{64} << 10) : 1 + data[0] % 64;
  const std::string script(berth::fuzz::asText(data + 1, size - 1));
  {
    FILE* file = std::fopen(scriptPath().c_str(), "wb");
    berth::fuzz::check(file != nullptr, "cannot write the script file", scriptPath());
    std::fwrite(script.data(), 1, script.size(), file);
    std::fclose(file);
  }
  const Read read = readScript(scriptPath(), chunk);
  const Read whole =
      chunk == (size_t{64} << 10) ? read : readScript(scriptPath(), size_t{64} << 10);
  std::remove(scriptPath().c_str());
  berth::fuzz::check(same(read, whole), "the reader gives another result with another chunk size",
                     "chunk " + std::to_string(chunk) + ":\n" + describe(read) +
                         "---\ndefault chunk:\n" + describe(whole));
  checkOwnItems(script, read);
  checkUtf8(script, chunk, read);

  bool plain = true;  // no COPY data, no meta-command: libpg_query can tell it all
  for (const ScriptItem& item : read.items)
    if (item.skip == SkipReason::MetaCommand || item.kind.copyFromStdin) plain = false;
  if (read.error && read.error->kind() == ScriptError::Kind::CopyData) plain = false;
  // A failing statement may be a meta-command line or COPY data the reader never got to: only
  // compare errors when no line of the rest starts with a backslash.
  if (read.error && read.error->kind() == ScriptError::Kind::Syntax &&
      (script.find("\n\\") != std::string::npos || script.starts_with("\\")))
    plain = false;
  if (plain) compareWithWholeText(script, read);
  return 0;
}
