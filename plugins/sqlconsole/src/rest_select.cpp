#include "rest_select.hpp"

#include <algorithm>
#include <string>

#include "rest_scanner.hpp"
#include "rest_text.hpp"

namespace berth::sqlconsole {

using rest_text::printableSnippet;
using rest_text::quotedSnippet;
namespace {

bool isTypeStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

class SelectParser {
 public:
  explicit SelectParser(RestScanner& scanner) : s_(scanner) {}

  // Items up to the end of the parameter (embed empty) or up to the ")" closing `embed`.
  SelectList parseList(std::size_t depth, const std::string& embed) {
    SelectList items;
    for (;;) {
      s_.skipSpaces();
      SelectItem item = parseItem(depth);
      rejectDuplicateKey(items, item);
      items.push_back(std::move(item));
      s_.skipSpaces();
      if (s_.consume(',')) continue;
      if (embed.empty()) {
        if (s_.atEnd()) return items;
        s_.failHere("expected \",\" or the end of select, found " + s_.found(),
                    "separate columns with commas");
      }
      if (s_.consume(')')) return items;
      s_.failHere("expected \",\" or \")\" in the columns of " + quotedSnippet(embed) + ", found " +
                      s_.found(),
                  "separate columns with commas and close the list with \")\"");
    }
  }

 private:
  SelectItem parseItem(std::size_t depth) {
    const std::size_t start = s_.offset();
    SelectItem item;
    item.origin = s_.originAt(start);
    if (s_.consume('*')) {
      item.kind = SelectKind::Star;
      if (s_.lookingAt("::")) {
        s_.fail(start, "* cannot be cast", "cast single columns, as in amount::text");
      }
      return item;
    }
    item.name = s_.readName("column name");
    if (s_.peek() == ':' && s_.peek(1) != ':') {
      // Loose names are taken for columns and tables only, never for an alias.
      if (!s_.lastNameRefusal().empty()) s_.fail(start, "a loosely written alias");
      s_.advance();
      item.alias = std::move(item.name);
      if (s_.peek() == '*') s_.failHere("* cannot have an alias", "alias single columns");
      item.name = s_.readName("column name");
    }
    item.origin.loose_refusal = s_.lastNameRefusal();
    if (s_.consume('!')) {
      const std::size_t hint_start = s_.offset();
      const bool quoted = s_.peek() == '"';
      item.hint = s_.readName("foreign key name");
      if (!s_.lastNameRefusal().empty()) s_.fail(hint_start, "a loosely written hint");
      // PostgREST reads !inner and !left as join kinds; this grammar has none, and taking them
      // for foreign key names would only lead to a puzzling "no such foreign key" later.
      if (!quoted && (item.hint == "inner" || item.hint == "left")) {
        s_.fail(hint_start, "join kinds (!inner, !left) are not supported",
                "to name a foreign key called " + item.hint + ", quote it: table!\"" + item.hint +
                    "\"(columns)");
      }
      if (s_.peek() == '!') {
        s_.failHere("an embedded table takes one !hint",
                    "name one foreign key, as in "
                    "addresses!billing(*)");
      }
      if (s_.peek() != '(') {
        s_.failHere(
            "expected \"(\" and the embedded table's columns after the hint, found " + s_.found(),
            "write it as table!foreign_key(columns)");
      }
    }
    if (s_.peek() == '(') {
      parseEmbed(item, depth);
    } else if (s_.consume("::")) {
      item.cast = parseType();
    }
    return item;
  }

  void parseEmbed(SelectItem& item, std::size_t depth) {
    if (depth + 1 > kMaxRestNesting) {
      s_.failHere("embedded tables nest more than " + std::to_string(kMaxRestNesting) + " deep");
    }
    item.kind = SelectKind::Embed;
    const std::size_t open = s_.offset();
    s_.advance();
    s_.skipSpaces();
    if (s_.peek() == ')') {
      s_.fail(open, quotedSnippet(item.name) + "() selects nothing",
              "write " + printableSnippet(item.name, 40) + "(*) for all its columns");
    }
    item.children = parseList(depth + 1, item.name);
    if (s_.lookingAt("::")) {
      s_.failHere("an embedded table cannot be cast", "cast its columns inside the parentheses");
    }
  }

  // A type name with optional [] suffixes; anything richer (varchar(10), double precision)
  // would need a type grammar of its own, and a view serves such cases better.
  std::string parseType() {
    const std::size_t start = s_.offset();
    if (!isTypeStart(s_.peek())) {
      s_.failHere("expected a type name after \"::\", found " + s_.found(),
                  "write a cast as column::text");
    }
    std::string type = s_.readWord();
    while (s_.consume("[]")) type += "[]";
    if (type.size() > kMaxRestNameBytes) s_.fail(start, "the type name is too long");
    return type;
  }

  // Two items with one key would give JSON rows with a repeated key.
  void rejectDuplicateKey(const SelectList& items, const SelectItem& item) {
    if (item.kind == SelectKind::Star) return;
    const std::string& key = item.alias.empty() ? item.name : item.alias;
    const bool taken = std::any_of(items.begin(), items.end(), [&](const SelectItem& other) {
      return other.kind != SelectKind::Star &&
             (other.alias.empty() ? other.name : other.alias) == key;
    });
    if (taken) {
      throw RestSyntaxError(describeRestProblem(
          item.origin, quotedSnippet(key) + " is selected twice",
          "give one of them another name, as in other_" + printableSnippet(key, 40) + ":" +
              printableSnippet(item.name, 40)));
    }
  }

  RestScanner& s_;
};

}  // namespace

SelectList parseSelect(std::string_view value) {
  return withLooseNames([&](std::string_view strict_refusal) {
    RestScanner s("select", value);
    s.allowLooseNames(strict_refusal);
    if (value.empty()) {
      s.failHere("select is empty", "list columns, as in select=id,name, or leave select out");
    }
    SelectParser parser(s);
    return parser.parseList(0, "");
  });
}

}  // namespace berth::sqlconsole
