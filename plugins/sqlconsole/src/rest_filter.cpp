#include "rest_filter.hpp"

#include <algorithm>
#include <string>

#include "rest_scanner.hpp"
#include "rest_text.hpp"

namespace berth::sqlconsole {

using rest_text::printableSnippet;
using rest_text::quotedSnippet;
namespace {

// Top level the value is the rest of the parameter; inside a group it ends at , or ).
enum class Context { TopLevel, Group };

constexpr std::string_view kQuoteItemAdvice =
    "put an item holding , ( ) or \" in double quotes, writing \\\" for a quote inside it";

// A short example of the operator in use, for advice in messages.
std::string exampleFor(FilterOp op) {
  const std::string name(filterOpName(op));
  switch (op) {
    case FilterOp::In:
      return "in.(1,2,3)";
    case FilterOp::Is:
      return "is.null";
    case FilterOp::Like:
    case FilterOp::Ilike:
      return name + ".*abc*";
    case FilterOp::Cs:
    case FilterOp::Cd:
    case FilterOp::Ov:
      return name + ".{1,2}";
    case FilterOp::Sl:
    case FilterOp::Sr:
    case FilterOp::Nxr:
    case FilterOp::Nxl:
    case FilterOp::Adj:
      return name + ".[1,10)";
    default:
      return takesLanguage(op) ? name + "(english).cat" : name + ".5";
  }
}

std::string conditionAdvice(Context context, std::string_view column) {
  const std::string shown = printableSnippet(column, 40);
  return context == Context::TopLevel
             ? "write a filter as column=operator.value, for example " + shown + "=eq.5"
             : "write a condition in a group as column.operator.value, for example " + shown +
                   ".eq.5";
}

std::string asciiLower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return out;
}

// PostgREST lets * stand for % so that patterns need no percent-encoding.
std::string starsToPercent(std::string text) {
  std::replace(text.begin(), text.end(), '*', '%');
  return text;
}

class FilterParser {
 public:
  explicit FilterParser(RestScanner& scanner) : s_(scanner) {}

  // ["not."] operator ["(" language ")"] "." — the part between the column and the value.
  void parseOperatorPart(Filter& f, Context context) {
    std::size_t start = s_.offset();
    std::string word = s_.readWord();
    if (word == "not" && s_.peek() == '.') {
      f.negated = true;
      s_.advance();
      start = s_.offset();
      word = s_.readWord();
      if (word == "not" && s_.peek() == '.') {
        s_.fail(start, "not. is given twice", "write not. once, before the operator");
      }
    }
    const auto op = filterOpFromName(word);
    if (!op) {
      if (!word.empty() && (s_.peek() == '.' || s_.peek() == '(')) {
        s_.fail(start, "unknown operator " + quotedSnippet(word),
                "use one of " + knownFilterOpNames());
      }
      s_.rewind(start);
      const std::string found = word.empty() ? s_.found() : quotedSnippet(word);
      s_.failHere("expected an operator, found " + found, conditionAdvice(context, f.column));
    }
    f.op = *op;
    if (s_.peek() == '(') {
      if (!takesLanguage(f.op)) {
        s_.failHere(std::string(filterOpName(f.op)) + " takes nothing in parentheses",
                    "only fts, plfts, phfts and wfts do: a text search language, as in "
                    "fts(english).cat");
      }
      s_.advance();
      f.language = s_.readWord();
      if (f.language.empty()) {
        s_.failHere("expected a text search language such as english, found " + s_.found());
      }
      if (!s_.consume(')')) {
        s_.failHere("expected \")\" after the language, found " + s_.found());
      }
    }
    if (!s_.consume('.')) {
      s_.failHere("expected \".\" and a value after " + quotedSnippet(filterOpName(f.op)) +
                      ", found " + s_.found(),
                  "write it as " + exampleFor(f.op));
    }
  }

  void parseValue(Filter& f, Context context) {
    if (f.op == FilterOp::In) {
      f.values = parseList();
      if (context == Context::TopLevel && !s_.atEnd()) {
        s_.failHere("unexpected " + s_.found() + " after the list of in",
                    "write the list as in.(1,2,3)");
      }
      return;
    }
    if (f.op == FilterOp::Is) {
      const std::size_t start = s_.offset();
      std::string word;
      if (context == Context::TopLevel) {
        word = std::string(s_.rest());
        s_.advance(word.size());
      } else {
        word = s_.readWord();
      }
      const std::string lower = asciiLower(word);
      if (lower == "null") {
        f.is = IsValue::Null;
      } else if (lower == "not_null") {
        f.is = IsValue::NotNull;
      } else if (lower == "true") {
        f.is = IsValue::True;
      } else if (lower == "false") {
        f.is = IsValue::False;
      } else if (lower == "unknown") {
        f.is = IsValue::Unknown;
      } else {
        s_.fail(start,
                "is takes null, not_null, true, false or unknown, not " + quotedSnippet(word));
      }
      return;
    }
    std::string value;
    if (context == Context::TopLevel) {
      value = std::string(s_.rest());
      s_.advance(value.size());
    } else {
      value = groupValue();
    }
    const bool pattern = f.op == FilterOp::Like || f.op == FilterOp::Ilike;
    f.value = pattern ? starsToPercent(std::move(value)) : std::move(value);
  }

  // "(" [item ("," item)*] ")" for in.
  std::vector<std::string> parseList() {
    if (!s_.consume('(')) {
      s_.failHere("expected \"(\" to start the list of in, found " + s_.found(),
                  "write the list as in.(1,2,3)");
    }
    std::vector<std::string> items;
    if (s_.consume(')')) return items;
    for (;;) {
      const std::size_t start = s_.offset();
      if (s_.peek() == '"') {
        items.push_back(s_.readQuoted());
      } else {
        while (!s_.atEnd() && !isListDelimiter(s_.peek())) s_.advance();
        items.emplace_back(s_.since(start));
        if (items.back().empty()) {
          if (s_.peek() == ',' || s_.peek() == ')') {
            s_.fail(start, "an item of the list of in is empty", "write \"\" for an empty text");
          }
          if (s_.atEnd()) s_.failHere("expected an item of the list of in, found the end");
        }
        if (s_.peek() == '(' || s_.peek() == '"') {
          s_.failHere("unexpected " + s_.found() + " inside an item of the list of in",
                      kQuoteItemAdvice);
        }
      }
      if (s_.consume(',')) continue;
      if (s_.consume(')')) return items;
      s_.failHere("expected \",\" or \")\" in the list of in, found " + s_.found(),
                  kQuoteItemAdvice);
    }
  }

  // A value inside a group: "double quoted", or plain text up to a , or ) outside brackets.
  std::string groupValue() {
    if (s_.peek() == '"') return s_.readQuoted();
    const std::size_t start = s_.offset();
    std::size_t depth = 0;
    std::size_t opener = start;
    while (!s_.atEnd()) {
      const char c = s_.peek();
      if (depth == 0 && (c == ',' || c == ')')) break;
      if (c == '"') {
        if (depth == 0) {
          s_.failHere("unexpected \" inside a value",
                      "put the whole value in double quotes, writing \\\" for a quote inside it");
        }
        skipQuotedVerbatim();
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        if (depth == 0) opener = s_.offset();
        ++depth;
      } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
        --depth;  // ranges close either way: [1,5) is as good as [1,5]
      }
      s_.advance();
    }
    if (depth > 0) {
      s_.fail(opener, "the bracket opened here is not closed",
              "close it, or put the whole value in double quotes");
    }
    return std::string(s_.since(start));
  }

  // "(" item ("," item)* ")" of an and/or group; g already has its kind and negation.
  void parseGroupBody(Filter& g, std::size_t depth) {
    if (depth > kMaxRestNesting) {
      s_.failHere("and/or groups nest more than " + std::to_string(kMaxRestNesting) + " deep");
    }
    const std::string name = g.kind == FilterKind::Or ? "or" : "and";
    const std::string example = name + "(a.eq.1,b.gt.2)";
    if (!s_.consume('(')) {
      s_.failHere("expected \"(\" after " + name + ", found " + s_.found(),
                  "write a group as " + example);
    }
    s_.skipSpaces();
    if (s_.peek() == ')') {
      s_.failHere("the " + name + " group is empty",
                  "put at least one condition in it, as in " + example);
    }
    for (;;) {
      s_.skipSpaces();
      g.children.push_back(parseGroupItem(depth));
      s_.skipSpaces();
      if (s_.consume(',')) continue;
      if (s_.consume(')')) return;
      s_.failHere("expected \",\" or \")\" in the " + name + " group, found " + s_.found(),
                  "separate conditions with commas and put a value holding , or ) in double "
                  "quotes");
    }
  }

 private:
  static bool isListDelimiter(char c) { return c == ',' || c == ')' || c == '(' || c == '"'; }

  // Steps over "..." inside a bracketed value, keeping it as written: the quotes belong to
  // the array or JSON literal, which the database reads.
  void skipQuotedVerbatim() {
    const std::size_t open = s_.offset();
    s_.advance();
    while (!s_.atEnd()) {
      const char c = s_.peek();
      s_.advance();
      if (c == '"') return;
      if (c == '\\') s_.advance();
    }
    s_.fail(open, "the double quote opened here is not closed",
            "end the quoted text with \" and write \\\" for a quote inside it");
  }

  // A nested group or a condition column.op.value.
  Filter parseGroupItem(std::size_t depth) {
    const std::size_t start = s_.offset();
    const bool quoted = s_.peek() == '"';
    const std::string word = s_.readName("column name");
    Filter f;
    f.origin = s_.originAt(start);
    f.origin.loose_refusal = s_.lastNameRefusal();
    if (!f.origin.loose_refusal.empty() && (s_.peek() == '(' || word == "not")) {
      s_.fail(start, "a loosely written name is only taken for a column");  // strict refusal
    }
    if (!quoted && s_.peek() == '(') {
      if (word != "or" && word != "and") {
        s_.fail(start, "unknown logical operator " + quotedSnippet(word),
                "groups are and(...), or(...), not.and(...) and not.or(...)");
      }
      f.kind = word == "or" ? FilterKind::Or : FilterKind::And;
      parseGroupBody(f, depth + 1);
      return f;
    }
    if (!quoted && word == "not" && s_.peek() == '.') {
      // not.or(...) / not.and(...); otherwise "not" was a column called not.
      const std::size_t dot = s_.offset();
      s_.advance();
      const std::string inner = s_.readWord();
      if ((inner == "or" || inner == "and") && s_.peek() == '(') {
        f.kind = inner == "or" ? FilterKind::Or : FilterKind::And;
        f.negated = true;
        parseGroupBody(f, depth + 1);
        return f;
      }
      s_.rewind(dot);
    }
    f.column = word;
    if (!s_.consume('.')) {
      s_.failHere("expected \".\" after the column name, found " + s_.found(),
                  conditionAdvice(Context::Group, word));
    }
    parseOperatorPart(f, Context::Group);
    parseValue(f, Context::Group);
    return f;
  }

  RestScanner& s_;
};

}  // namespace

bool isLogicFilterKey(std::string_view key) {
  return key == "or" || key == "and" || key == "not.or" || key == "not.and";
}

Filter parseColumnFilter(std::string_view key, std::string_view value) {
  return withLooseNames([&](std::string_view strict_refusal) {
    RestScanner key_scanner(key, value, RestScanner::Part::Key);
    key_scanner.allowLooseNames(strict_refusal);
    if (key.substr(0, 4) == "not.") {
      key_scanner.failHere("a filter's name is the column it filters",
                           "to negate a filter write column=not.operator.value");
    }
    Filter f;
    f.column = key_scanner.readName("column name");
    const std::string loose_refusal = key_scanner.lastNameRefusal();
    if (key_scanner.peek() == '.') {
      key_scanner.failHere("filters on embedded tables are not supported",
                           "filter on a column of this table; quote a column whose name has a "
                           "dot, as in \"a.b\"=eq.1");
    }
    if (!key_scanner.atEnd()) {
      key_scanner.failHere("unexpected " + key_scanner.found() + " after the column name",
                           "a filter is written column=operator.value; put a name with "
                           "characters other than letters, digits, _ and $ in double quotes");
    }
    f.origin = key_scanner.originAt(0);
    f.origin.loose_refusal = loose_refusal;

    RestScanner scanner(key, value);
    FilterParser parser(scanner);
    parser.parseOperatorPart(f, Context::TopLevel);
    parser.parseValue(f, Context::TopLevel);
    return f;
  });
}

Filter parseLogicFilter(std::string_view key, std::string_view value) {
  return withLooseNames([&](std::string_view strict_refusal) {
    RestScanner scanner(key, value);
    scanner.allowLooseNames(strict_refusal);
    Filter g;
    g.kind = key == "or" || key == "not.or" ? FilterKind::Or : FilterKind::And;
    g.negated = key == "not.or" || key == "not.and";
    g.origin = scanner.originAt(0);
    FilterParser parser(scanner);
    parser.parseGroupBody(g, 1);
    if (!scanner.atEnd()) {
      scanner.failHere("unexpected " + scanner.found() + " after the closing \")\"",
                       "put every condition of the group inside its parentheses");
    }
    return g;
  });
}

}  // namespace berth::sqlconsole
