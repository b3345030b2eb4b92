// A cursor over one query parameter with what every part of the rows grammar shares: names,
// quoted strings, keywords and errors that say where. Each parser (filters, order, select)
// is recursive descent over one of these.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "rest_error.hpp"

namespace berth::sqlconsole {

// How deep and/or groups and embedded tables may nest. Deep enough for any real query, and it
// keeps a hostile URL from recursing the parser off the end of its stack.
inline constexpr std::size_t kMaxRestNesting = 32;

// PostgreSQL keeps 63 bytes of a name (NAMEDATALEN - 1); a longer name names nothing.
inline constexpr std::size_t kMaxRestNameBytes = 63;

class RestScanner {
 public:
  enum class Part { Key, Value };

  // Scans the key or the value of the parameter key=value (already percent-decoded). Positions
  // and messages count in the whole "key=value". Throws RestSyntaxError when either holds a
  // NUL or is not UTF-8, so every later step and message deals with clean text only.
  RestScanner(std::string_view key, std::string_view value, Part part = Part::Value);

  bool atEnd() const { return pos_ >= end_; }
  // The byte `ahead` bytes on, or '\0' past the end of the part.
  char peek(std::size_t ahead = 0) const;
  bool lookingAt(std::string_view s) const;
  bool consume(char c);
  bool consume(std::string_view s);
  void advance(std::size_t n = 1);
  // Offsets count in "key=value", as errors do.
  std::size_t offset() const { return pos_; }
  void rewind(std::size_t offset) { pos_ = offset; }
  // What is left of the part.
  std::string_view rest() const;
  // The text from `start` (an earlier offset()) up to the cursor.
  std::string_view since(std::size_t start) const;
  // Spaces (not tabs or anything else) between list items carry no meaning.
  void skipSpaces();

  // A name: unquoted it is one or more ASCII letters, digits, _ or $ or non-ASCII characters;
  // anything else must be in double quotes, where \" and \\ stand for " and \. Never empty,
  // at most kMaxRestNameBytes bytes, no control characters. `what` ("column name") is used in
  // messages. JSON paths (col->x) are refused with a message of their own.
  // With loose names allowed, an unquoted name may also hold what PostgREST's own grammar
  // takes as it stands: spaces (those at either end of a piece are dropped) and a dash between
  // two pieces (Full Name, nic-hdl; never the -> of a JSON path).
  std::string readName(std::string_view what);
  // Lets readName take loose names from here on; `strict_refusal` is the message the strict
  // reading of this parameter gave, for the nodes that hold such a name (withLooseNames).
  void allowLooseNames(std::string_view strict_refusal) { loose_refusal_ = strict_refusal; }
  // Whether the last name readName returned was read by the loose rules only, and the message
  // such a name's node keeps (RestOrigin::loose_refusal); empty when the name was strict.
  const std::string& lastNameRefusal() const {
    return last_name_loose_ ? loose_refusal_ : kNoRefusal;
  }
  // ASCII letters, digits and _ (possibly none): operators, keywords, languages.
  std::string readWord();
  // At a double quote: the quoted text up to the closing quote, with \x read as x.
  std::string readQuoted();

  // What is at the cursor, for messages: "\"x\"" or "the end".
  std::string found() const;
  RestOrigin originAt(std::size_t offset) const;
  [[noreturn]] void fail(std::size_t offset, std::string_view problem,
                         std::string_view advice = {}) const;
  [[noreturn]] void failHere(std::string_view problem, std::string_view advice = {}) const {
    fail(pos_, problem, advice);
  }

 private:
  // readName's unquoted name from `start` again, by the loose rules.
  std::string readLooseRest(std::size_t start);

  std::string text_;   // "key=value"
  std::string shown_;  // text_ made printable and short, for messages
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  std::string loose_refusal_;  // non-empty: loose names allowed
  bool last_name_loose_ = false;
  static inline const std::string kNoRefusal;
};

// Parses a parameter strictly (parse("")) and, when that throws RestSyntaxError, once more with
// loose names allowed (parse(message of the strict refusal)): PostgREST reads Full Name=eq.1
// as a filter on the column "Full Name". A parameter the strict grammar takes is never read
// another way; one neither reading takes is refused with the strict message, as before.
template <class Parse>
auto withLooseNames(Parse&& parse) -> decltype(parse(std::string_view{})) {
  try {
    return parse(std::string_view{});
  } catch (const RestSyntaxError& strict) {
    try {
      return parse(std::string_view(strict.what()));
    } catch (const RestSyntaxError&) {
    }
    throw;
  }
}

}  // namespace berth::sqlconsole
