#include "rest_order.hpp"

#include "rest_scanner.hpp"
#include "rest_text.hpp"

namespace berth::sqlconsole {

using rest_text::quotedSnippet;
namespace {

constexpr std::string_view kModifiers = "asc, desc, nullsfirst or nullslast";

// Reads the ".modifier" parts after a term's column.
void parseModifiers(RestScanner& s, OrderTerm& term) {
  bool direction_given = false;
  while (s.consume('.')) {
    const std::size_t start = s.offset();
    const std::string word = s.readWord();
    if (word.empty()) {
      s.failHere("expected " + std::string(kModifiers) + " after \".\", found " + s.found());
    }
    if (word == "asc" || word == "desc") {
      if (direction_given) s.fail(start, "the direction is given twice", "keep asc or desc");
      direction_given = true;
      term.descending = word == "desc";
    } else if (word == "nullsfirst" || word == "nullslast") {
      if (term.nulls != NullsOrder::Default) {
        s.fail(start, "where nulls go is given twice", "keep nullsfirst or nullslast");
      }
      term.nulls = word == "nullsfirst" ? NullsOrder::First : NullsOrder::Last;
    } else {
      s.fail(start, quotedSnippet(word) + " is not " + std::string(kModifiers),
             "write a term as column, column.desc or column.asc.nullslast");
    }
  }
}

}  // namespace

std::vector<OrderTerm> parseOrder(std::string_view value) {
  return withLooseNames([&](std::string_view strict_refusal) {
    RestScanner s("order", value);
    s.allowLooseNames(strict_refusal);
    if (value.empty()) {
      s.failHere("order is empty", "list columns, as in order=age.desc,name, or leave order out");
    }
    std::vector<OrderTerm> terms;
    for (;;) {
      s.skipSpaces();
      const std::size_t start = s.offset();
      OrderTerm term;
      term.column = s.readName("column name");
      term.origin = s.originAt(start);
      term.origin.loose_refusal = s.lastNameRefusal();
      parseModifiers(s, term);
      terms.push_back(std::move(term));
      s.skipSpaces();
      if (s.atEnd()) return terms;
      if (!s.consume(',')) {
        s.failHere("expected \",\" or the end after an order term, found " + s.found(),
                   "write a term as column, column.desc or column.asc.nullslast");
      }
    }
  });
}

}  // namespace berth::sqlconsole
