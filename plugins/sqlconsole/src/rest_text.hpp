// Text helpers for the rows query grammar: safe snippets and positions for error messages.
// Error messages end up in JSON bodies, so anything quoted from a request must be valid UTF-8
// and short; these helpers guarantee both (on berth/common/utf8.hpp, which the scanner also
// uses to refuse text that is not UTF-8).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace berth::sqlconsole::rest_text {

// How many characters (code points) the first `offset` bytes of valid UTF-8 text hold, plus
// one: the 1-based character position a person counts to when reading the text.
std::size_t characterPosition(std::string_view text, std::size_t offset);

// text made fit to quote: control characters and bytes that are not UTF-8 become \xNN, and
// text longer than max_characters is cut (on a character boundary) and ends in "...".
std::string printableSnippet(std::string_view text, std::size_t max_characters);

// printableSnippet in double quotes, for naming one token: quotedSnippet("equals") is "equals".
std::string quotedSnippet(std::string_view text);

// The UTF-8 sequence (one whole character) starting at offset, or "" at or past the end.
std::string_view characterAt(std::string_view text, std::size_t offset);

}  // namespace berth::sqlconsole::rest_text
