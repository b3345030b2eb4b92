// Malformed rows queries: each must be refused with a message that names the parameter, the
// character where the problem is and, where it can, how to write it instead. Also input that
// looks like SQL injection, which must be refused or kept as plain data.
#include <gtest/gtest.h>

#include <string>

#include "rest_query.hpp"

using namespace berth::sqlconsole;

namespace {

struct Malformed {
  RestParams params;
  std::string message;
};

std::string errorOf(const RestParams& params) {
  try {
    parseRestQuery(params);
  } catch (const RestSyntaxError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kOperators =
    "eq, neq, gt, gte, lt, lte, like, ilike, match, imatch, in, is, isdistinct, fts, plfts, "
    "phfts, wfts, cs, cd, ov, sl, sr, nxr, nxl, adj";
const std::string kQuoteItem =
    "put an item holding , ( ) or \" in double quotes, writing \\\" for a quote inside it";
const std::string kQuoteName =
    "put a name with characters other than letters, digits, _ and $ in double quotes";
const std::string kCloseQuote = "end the quoted text with \" and write \\\" for a quote inside it";
const std::string kOrderTerm = "write a term as column, column.desc or column.asc.nullslast";

const Malformed kCases[] = {
    // Operators.
    {{{"age", "equals.5"}},
     "unknown operator \"equals\" at character 5 of age=equals.5; use one of " + kOperators},
    {{{"age", "5"}},
     "expected an operator, found \"5\" at character 5 of age=5; write a filter as "
     "column=operator.value, for example age=eq.5"},
    {{{"age", ""}},
     "expected an operator, found the end at character 5 of age=; write a filter as "
     "column=operator.value, for example age=eq.5"},
    {{{"age", "equals"}},
     "expected an operator, found \"equals\" at character 5 of age=equals; write a filter as "
     "column=operator.value, for example age=eq.5"},
    {{{"age", "eq"}},
     "expected \".\" and a value after \"eq\", found the end at character 7 of age=eq; write it "
     "as eq.5"},
    {{{"id", "in"}},
     "expected \".\" and a value after \"in\", found the end at character 6 of id=in; write it "
     "as in.(1,2,3)"},
    {{{"age", "not.not.eq.1"}},
     "not. is given twice at character 9 of age=not.not.eq.1; write not. once, before the "
     "operator"},
    {{{"age", "not.5"}},
     "expected an operator, found \"5\" at character 9 of age=not.5; write a filter as "
     "column=operator.value, for example age=eq.5"},
    {{{"a", "eq(english).x"}},
     "eq takes nothing in parentheses at character 5 of a=eq(english).x; only fts, plfts, phfts "
     "and wfts do: a text search language, as in fts(english).cat"},
    {{{"t", "fts().x"}},
     "expected a text search language such as english, found \")\" at character 7 of t=fts().x"},
    {{{"t", "fts(english.x"}},
     "expected \")\" after the language, found \".\" at character 14 of t=fts(english.x"},
    // Values: in and is.
    {{{"id", "in.(1,2"}},
     "expected \",\" or \")\" in the list of in, found the end at character 11 of id=in.(1,2; " +
         kQuoteItem},
    {{{"id", "in.1,2"}},
     "expected \"(\" to start the list of in, found \"1\" at character 7 of id=in.1,2; write the "
     "list as in.(1,2,3)"},
    {{{"id", "in.(1,,2)"}},
     "an item of the list of in is empty at character 10 of id=in.(1,,2); write \"\" for an "
     "empty text"},
    {{{"id", "in.(1,"}},
     "expected an item of the list of in, found the end at character 10 of id=in.(1,"},
    {{{"id", "in.(1,2)x"}},
     "unexpected \"x\" after the list of in at character 12 of id=in.(1,2)x; write the list as "
     "in.(1,2,3)"},
    {{{"id", "in.(\"a,b)"}},
     "the double quote opened here is not closed at character 8 of id=in.(\"a,b); " + kCloseQuote},
    {{{"id", "in.(a\"b\")"}},
     "unexpected \"\"\" inside an item of the list of in at character 9 of id=in.(a\"b\"); " +
         kQuoteItem},
    {{{"id", "in.(\"a\"b)"}},
     "expected \",\" or \")\" in the list of in, found \"b\" at character 11 of id=in.(\"a\"b); " +
         kQuoteItem},
    {{{"id", "in.((1))"}},
     "unexpected \"(\" inside an item of the list of in at character 8 of id=in.((1)); " +
         kQuoteItem},
    {{{"a", "is.maybe"}},
     "is takes null, not_null, true, false or unknown, not \"maybe\" at character 6 of "
     "a=is.maybe"},
    {{{"a", "is."}},
     "is takes null, not_null, true, false or unknown, not \"\" at character 6 of a=is."},
    // Logic groups.
    {{{"or", "a.eq.1"}},
     "expected \"(\" after or, found \"a\" at character 4 of or=a.eq.1; write a group as "
     "or(a.eq.1,b.gt.2)"},
    {{{"or", "()"}},
     "the or group is empty at character 5 of or=(); put at least one condition in it, as in "
     "or(a.eq.1,b.gt.2)"},
    {{{"and", "(a.eq.1,or())"}},
     "the or group is empty at character 16 of and=(a.eq.1,or()); put at least one condition "
     "in it, as in or(a.eq.1,b.gt.2)"},
    {{{"or", "(a.eq.1"}},
     "expected \",\" or \")\" in the or group, found the end at character 11 of or=(a.eq.1; "
     "separate conditions with commas and put a value holding , or ) in double quotes"},
    {{{"or", "(a.eq.1)x"}},
     "unexpected \"x\" after the closing \")\" at character 12 of or=(a.eq.1)x; put every "
     "condition of the group inside its parentheses"},
    {{{"or", "(xor(a.eq.1))"}},
     "unknown logical operator \"xor\" at character 5 of or=(xor(a.eq.1)); groups are and(...), "
     "or(...), not.and(...) and not.or(...)"},
    {{{"or", "(a=eq.1)"}},
     "expected \".\" after the column name, found \"=\" at character 6 of or=(a=eq.1); write a "
     "condition in a group as column.operator.value, for example a.eq.5"},
    {{{"or", "(a.eq.x\"y\")"}},
     "unexpected \" inside a value at character 11 of or=(a.eq.x\"y\"); put the whole value in "
     "double quotes, writing \\\" for a quote inside it"},
    {{{"or", "(t.cs.{{{1})"}},
     "the bracket opened here is not closed at character 10 of or=(t.cs.{{{1}); close it, or "
     "put the whole value in double quotes"},
    {{{"or", "(a.eq.\"x)"}},
     "the double quote opened here is not closed at character 10 of or=(a.eq.\"x); " + kCloseQuote},
    {{{"or", "(a.equals.1)"}},
     "unknown operator \"equals\" at character 7 of or=(a.equals.1); use one of " + kOperators},
    {{{"or", "(a.1)"}},
     "expected an operator, found \"1\" at character 7 of or=(a.1); write a condition in a group "
     "as column.operator.value, for example a.eq.5"},
    {{{"or", "(,a.eq.1)"}}, "expected a column name, found \",\" at character 5 of or=(,a.eq.1)"},
    // Order.
    {{{"order", "age.desc2"}},
     "\"desc2\" is not asc, desc, nullsfirst or nullslast at character 11 of order=age.desc2; " +
         kOrderTerm},
    {{{"order", "age.desc.asc"}},
     "the direction is given twice at character 16 of order=age.desc.asc; keep asc or desc"},
    {{{"order", "a.nullsfirst.nullslast"}},
     "where nulls go is given twice at character 20 of order=a.nullsfirst.nullslast; keep "
     "nullsfirst or nullslast"},
    {{{"order", ""}},
     "order is empty at character 7 of order=; list columns, as in order=age.desc,name, or "
     "leave order out"},
    {{{"order", "a,"}}, "expected a column name, found the end at character 9 of order=a,"},
    {{{"order", "a."}},
     "expected asc, desc, nullsfirst or nullslast after \".\", found the end at character 9 of "
     "order=a."},
    {{{"order", "a;b"}},
     "expected \",\" or the end after an order term, found \";\" at character 8 of order=a;b; " +
         kOrderTerm},
    // Limit, offset and repeated keys.
    {{{"limit", "x"}}, "limit must be a whole number, got \"x\""},
    {{{"limit", ""}}, "limit must be a whole number, got \"\""},
    {{{"limit", "1.5"}}, "limit must be a whole number, got \"1.5\""},
    {{{"limit", " 5"}}, "limit must be a whole number, got \" 5\""},
    {{{"limit", "+5"}}, "limit must be a whole number, got \"+5\""},
    {{{"offset", "-1"}}, "offset cannot be negative, got \"-1\""},
    {{{"offset", "abc"}}, "offset must be a whole number, got \"abc\""},
    {{{"offset", ""}}, "offset must be a whole number, got \"\""},
    {{{"limit", "5"}, {"limit", "6"}}, "limit is given twice; give it once"},
    {{{"select", "id"}, {"select", "name"}}, "select is given twice; give it once"},
    {{{"order", "id"}, {"order", "id"}}, "order is given twice; give it once"},
    {{{"offset", "1"}, {"offset", "1"}}, "offset is given twice; give it once"},
    // Keys.
    {{{"", "5"}}, "expected a column name, found the end at character 1 of =5"},
    {{{"orders.amount", "gt.5"}},
     "filters on embedded tables are not supported at character 7 of orders.amount=gt.5; "
     "filter on a column of this table; quote a column whose name has a dot, as in "
     "\"a.b\"=eq.1"},
    {{{"not.age", "eq.1"}},
     "a filter's name is the column it filters at character 1 of not.age=eq.1; to negate a "
     "filter write column=not.operator.value"},
    {{{"\"\"", "eq.1"}}, "a quoted column name is empty at character 1 of \"\"=eq.1"},
    {{{"\"abc", "eq.1"}},
     "the double quote opened here is not closed at character 1 of \"abc=eq.1; " + kCloseQuote},
    {{{std::string(64, 'a'), "eq.1"}},
     "the column name is longer than 63 bytes, more than PostgreSQL keeps at character 1 of " +
         std::string(64, 'a') + "=eq.1"},
    {{{"\"a\tb\"", "eq.1"}},
     "a column name cannot hold control characters at character 1 of \"a\\x09b\"=eq.1"},
    {{{"data->>x", "eq.1"}},
     "JSON paths (-> and ->>) are not supported at character 5 of data->>x=eq.1; name a whole "
     "column"},
    // Unit Price=lt.200 is read as PostgREST reads it (rest_loose_names_test.cpp).
    {{{"Unit;Price", "lt.200"}},
     "unexpected \";\" after the column name at character 5 of Unit;Price=lt.200; a filter is "
     "written column=operator.value; " +
         kQuoteName},
    // Text that cannot be a parameter at all.
    {{{"a", std::string("eq.x\0y", 6)}},
     "the NUL character (%00) is not allowed at character 7 of a=eq.x\\x00y; remove it"},
    {{{"a", "eq.\xff"}},
     "the text is not valid UTF-8 at character 6 of a=eq.\\xFF; percent-encode the UTF-8 bytes "
     "of the text"},
    {{{"a", "eq.\xc0\xaf"}},  // an overlong "/", a classic filter bypass
     "the text is not valid UTF-8 at character 6 of a=eq.\\xC0\\xAF; percent-encode the UTF-8 "
     "bytes of the text"},
};

}  // namespace

TEST(RestErrors, EachMalformedInputHasItsMessage) {
  ASSERT_GE(std::size(kCases), 25u);
  for (const Malformed& c : kCases) {
    const std::string where = c.params.empty() ? "" : c.params[0].first + "=" + c.params[0].second;
    EXPECT_EQ(errorOf(c.params), c.message) << where;
  }
}

TEST(RestErrors, LongParametersAreShortenedInMessages) {
  const std::string value = "equals." + std::string(300, 'x');
  const std::string message = errorOf({{"a", value}});
  const std::string shown = "a=equals." + std::string(111, 'x') + "...";
  EXPECT_EQ(message, "unknown operator \"equals\" at character 3 of " + shown + "; use one of " +
                         kOperators);
  const std::string long_op(100, 'q');
  EXPECT_EQ(errorOf({{"a", long_op + ".1"}}), "unknown operator \"" + std::string(40, 'q') +
                                                  "...\" at character 3 of a=" + long_op +
                                                  ".1; use one of " + kOperators);
}

TEST(RestErrors, InjectionLookingNamesAreRefused) {
  // Names stop at the first character a name cannot hold unquoted, so none of these is ever
  // taken for a column, a table or a type; what follows is named in the message.
  EXPECT_EQ(errorOf({{"a;b", "eq.1"}}),
            "unexpected \";\" after the column name at character 2 of a;b=eq.1; a filter is "
            "written column=operator.value; " +
                kQuoteName);
  EXPECT_EQ(errorOf({{"id' OR '1'", "'1"}}),
            "unexpected \"'\" after the column name at character 3 of id' OR '1'='1; a filter "
            "is written column=operator.value; " +
                kQuoteName);
  EXPECT_EQ(errorOf({{"select", "id;drop table x"}}),
            "expected \",\" or the end of select, found \";\" at character 10 of select=id;drop "
            "table x; separate columns with commas");
  EXPECT_EQ(errorOf({{"select", "id::text;drop"}}),
            "expected \",\" or the end of select, found \";\" at character 16 of "
            "select=id::text;drop; separate columns with commas");
  EXPECT_EQ(errorOf({{"select", "t!fk);drop(id)"}}),
            "expected \"(\" and the embedded table's columns after the hint, found \")\" at "
            "character 12 of select=t!fk);drop(id); write it as table!foreign_key(columns)");
  EXPECT_EQ(errorOf({{"order", "id;drop table x"}}),
            "expected \",\" or the end after an order term, found \";\" at character 9 of "
            "order=id;drop table x; " +
                kOrderTerm);
  EXPECT_EQ(errorOf({{"or", "(id;drop.eq.1)"}}),
            "expected \".\" after the column name, found \";\" at character 7 of "
            "or=(id;drop.eq.1); write a condition in a group as column.operator.value, for "
            "example id.eq.5");
  EXPECT_EQ(errorOf({{"t", "fts(english');drop).x"}}),
            "expected \")\" after the language, found \"'\" at character 14 of "
            "t=fts(english');drop).x");
}

TEST(RestErrors, MessagesAreAlwaysValidTextEvenForBadBytes) {
  // Every message is quoted in a JSON body: bad bytes and control characters show as \xNN.
  const std::string message = errorOf({{"a\x01", "eq.1"}});
  EXPECT_EQ(message.find('\x01'), std::string::npos) << message;
  EXPECT_NE(message.find("\\x01"), std::string::npos) << message;
}
