#include "rest_scanner.hpp"

#include <berth/common/utf8.hpp>
#include "rest_text.hpp"

namespace berth::sqlconsole {

using rest_text::characterAt;
using rest_text::characterPosition;
using rest_text::printableSnippet;
using rest_text::quotedSnippet;
namespace {

// Longest "key=value" quoted in a message; the position still counts in the whole text.
constexpr std::size_t kShownCharacters = 120;

bool isAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool isUnquotedNameByte(char c) {
  // Bytes >= 0x80 are parts of non-ASCII characters; the text is known to be valid UTF-8.
  return isAsciiAlnum(c) || c == '_' || c == '$' || static_cast<unsigned char>(c) >= 0x80;
}

constexpr std::string_view kQuoteAdvice =
    "put a name with characters other than letters, digits, _ and $ in double quotes";

}  // namespace

RestScanner::RestScanner(std::string_view key, std::string_view value, Part part) {
  text_.reserve(key.size() + 1 + value.size());
  text_.append(key).append("=").append(value);
  shown_ = printableSnippet(text_, kShownCharacters);
  pos_ = part == Part::Key ? 0 : key.size() + 1;
  end_ = part == Part::Key ? key.size() : text_.size();

  // A NUL cannot travel as a text parameter to PostgreSQL, and text that is not UTF-8 could
  // not be quoted back in a JSON error; both are refused here, once, for the whole parameter.
  if (const auto nul = text_.find('\0'); nul != std::string::npos) {
    fail(nul, "the NUL character (%00) is not allowed", "remove it");
  }
  if (const auto bad = common::firstInvalidUtf8(text_)) {
    fail(*bad, "the text is not valid UTF-8", "percent-encode the UTF-8 bytes of the text");
  }
}

char RestScanner::peek(std::size_t ahead) const {
  return pos_ + ahead < end_ ? text_[pos_ + ahead] : '\0';
}

bool RestScanner::lookingAt(std::string_view s) const {
  return rest().substr(0, s.size()) == s;
}

bool RestScanner::consume(char c) {
  if (atEnd() || text_[pos_] != c) return false;
  ++pos_;
  return true;
}

bool RestScanner::consume(std::string_view s) {
  if (!lookingAt(s)) return false;
  pos_ += s.size();
  return true;
}

void RestScanner::advance(std::size_t n) {
  pos_ = pos_ + n < end_ ? pos_ + n : end_;
}

std::string_view RestScanner::rest() const {
  return std::string_view(text_).substr(pos_, end_ - pos_);
}

std::string_view RestScanner::since(std::size_t start) const {
  return start <= pos_ ? std::string_view(text_).substr(start, pos_ - start) : std::string_view{};
}

void RestScanner::skipSpaces() {
  while (peek() == ' ') ++pos_;
}

std::string RestScanner::readLooseRest(std::size_t start) {
  // PostgREST: pieces of letters, digits, _, $ and spaces, each trimmed, joined by dashes.
  const auto piece_byte = [](char c) { return isUnquotedNameByte(c) || c == ' '; };
  pos_ = start;
  std::string name;
  for (;;) {
    const std::size_t piece_start = pos_;
    while (!atEnd() && piece_byte(text_[pos_])) ++pos_;
    std::string_view piece = std::string_view(text_).substr(piece_start, pos_ - piece_start);
    const std::size_t first = piece.find_first_not_of(' ');
    piece = first == std::string_view::npos
                ? std::string_view{}
                : piece.substr(first, piece.find_last_not_of(' ') - first + 1);
    if (piece.empty()) {
      pos_ = piece_start;
      if (name.empty()) return {};
      pos_ -= 1;  // a dash with no piece after it is not part of the name
      name.pop_back();
      break;
    }
    name.append(piece);
    if (peek() != '-' || peek(1) == '>' || !piece_byte(peek(1))) break;
    name.push_back('-');
    advance();
  }
  last_name_loose_ = pos_ - start != name.size() || name.find_first_of(" -") != std::string::npos;
  return name;
}

std::string RestScanner::readName(std::string_view what) {
  const std::size_t start = pos_;
  last_name_loose_ = false;
  std::string name;
  if (peek() == '"') {
    name = readQuoted();
    if (name.empty()) fail(start, "a quoted " + std::string(what) + " is empty");
    for (char c : name) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
        fail(start, "a " + std::string(what) + " cannot hold control characters");
      }
    }
  } else {
    while (!atEnd() && isUnquotedNameByte(text_[pos_])) ++pos_;
    name = text_.substr(start, pos_ - start);
    if (!loose_refusal_.empty()) name = readLooseRest(start);
    if (name.empty()) {
      // Advice to quote helps with a stray character, not with a missing name.
      const bool stray = !atEnd() && std::string_view(",()").find(peek()) == std::string_view::npos;
      failHere("expected a " + std::string(what) + ", found " + found(),
               stray ? kQuoteAdvice : std::string_view{});
    }
    if (lookingAt("->")) {
      failHere("JSON paths (-> and ->>) are not supported", "name a whole column");
    }
  }
  if (name.size() > kMaxRestNameBytes) {
    fail(start, "the " + std::string(what) + " is longer than " +
                    std::to_string(kMaxRestNameBytes) + " bytes, more than PostgreSQL keeps");
  }
  return name;
}

std::string RestScanner::readWord() {
  const std::size_t start = pos_;
  while (!atEnd() && (isAsciiAlnum(text_[pos_]) || text_[pos_] == '_')) ++pos_;
  return text_.substr(start, pos_ - start);
}

std::string RestScanner::readQuoted() {
  const std::size_t open = pos_;
  ++pos_;  // the opening quote
  std::string out;
  while (!atEnd()) {
    const char c = text_[pos_++];
    if (c == '"') return out;
    if (c == '\\') {
      if (atEnd()) break;
      out.push_back(text_[pos_++]);
    } else {
      out.push_back(c);
    }
  }
  fail(open, "the double quote opened here is not closed",
       "end the quoted text with \" and write \\\" for a quote inside it");
}

std::string RestScanner::found() const {
  return atEnd() ? std::string("the end")
                 : quotedSnippet(characterAt(std::string_view(text_).substr(0, end_), pos_));
}

RestOrigin RestScanner::originAt(std::size_t offset) const {
  return RestOrigin{shown_, characterPosition(text_, offset), {}};
}

void RestScanner::fail(std::size_t offset, std::string_view problem,
                       std::string_view advice) const {
  throw RestSyntaxError(describeRestProblem(originAt(offset), problem, advice));
}

}  // namespace berth::sqlconsole
