// The rows query grammar: filters with every operator, not., and/or groups, quoting,
// order, limit and offset, and how parseRestQuery sorts parameters. Select has its own file
// (rest_select_test.cpp), malformed input too (rest_errors_test.cpp).
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "rest_query.hpp"

using namespace berth::sqlconsole;

namespace {

// The one filter that key=value gives.
Filter filterOf(const std::string& key, const std::string& value) {
  const RestQuery query = parseRestQuery({{key, value}});
  EXPECT_EQ(query.filters.size(), 1u) << key << "=" << value;
  return query.filters.at(0);
}

std::string canonical(const std::string& key, const std::string& value) {
  return describeFilter(filterOf(key, value));
}

std::string errorOf(const RestParams& params) {
  try {
    parseRestQuery(params);
  } catch (const RestSyntaxError& e) {
    return e.what();
  }
  return "(no error)";
}

struct OperatorCase {
  std::string op;
  FilterOp expected;
  std::string written;  // the value as written after "op."
  std::string value;    // what Filter::value holds (in: unused, is: unused)
};

const OperatorCase kOperatorCases[] = {
    {"eq", FilterOp::Eq, "5", "5"},
    {"neq", FilterOp::Neq, "5", "5"},
    {"gt", FilterOp::Gt, "5", "5"},
    {"gte", FilterOp::Gte, "5", "5"},
    {"lt", FilterOp::Lt, "5", "5"},
    {"lte", FilterOp::Lte, "5", "5"},
    {"like", FilterOp::Like, "*ab*c", "%ab%c"},
    {"ilike", FilterOp::Ilike, "ab*", "ab%"},
    {"match", FilterOp::Match, "^a.*b$", "^a.*b$"},
    {"imatch", FilterOp::Imatch, "^A", "^A"},
    {"in", FilterOp::In, "(1,2)", ""},
    {"is", FilterOp::Is, "null", ""},
    {"isdistinct", FilterOp::IsDistinct, "x", "x"},
    {"fts", FilterOp::Fts, "cat & dog", "cat & dog"},
    {"plfts", FilterOp::Plfts, "fat cats", "fat cats"},
    {"phfts", FilterOp::Phfts, "fat cats", "fat cats"},
    {"wfts", FilterOp::Wfts, "fat or cat -dog", "fat or cat -dog"},
    {"cs", FilterOp::Cs, "{1,2}", "{1,2}"},
    {"cd", FilterOp::Cd, "{1,2,3}", "{1,2,3}"},
    {"ov", FilterOp::Ov, "[2017-01-01,2017-06-30]", "[2017-01-01,2017-06-30]"},
    {"sl", FilterOp::Sl, "(1,10)", "(1,10)"},
    {"sr", FilterOp::Sr, "[1,10)", "[1,10)"},
    {"nxr", FilterOp::Nxr, "(1,10]", "(1,10]"},
    {"nxl", FilterOp::Nxl, "(1,10)", "(1,10)"},
    {"adj", FilterOp::Adj, "(1,10)", "(1,10)"},
};

}  // namespace

TEST(RestFilter, EveryOperatorPlainAndNegated) {
  for (const OperatorCase& c : kOperatorCases) {
    for (const bool negated : {false, true}) {
      const std::string written = (negated ? "not." : "") + c.op + "." + c.written;
      SCOPED_TRACE(written);
      const Filter f = filterOf("col", written);
      EXPECT_EQ(f.kind, FilterKind::Condition);
      EXPECT_EQ(f.column, "col");
      EXPECT_EQ(f.op, c.expected);
      EXPECT_EQ(f.negated, negated);
      EXPECT_EQ(filterOpName(f.op), c.op);
      if (c.expected == FilterOp::In) {
        EXPECT_EQ(f.values, (std::vector<std::string>{"1", "2"}));
      } else if (c.expected == FilterOp::Is) {
        EXPECT_EQ(f.is, IsValue::Null);
      } else {
        EXPECT_EQ(f.value, c.value);
      }
      EXPECT_EQ(f.language, "");
    }
  }
}

TEST(RestFilter, EveryOperatorInsideAGroupToo) {
  for (const OperatorCase& c : kOperatorCases) {
    SCOPED_TRACE(c.op);
    const Filter g = filterOf(
        "or", "(col." + c.op + "." + c.written + ",col.not." + c.op + "." + c.written + ")");
    ASSERT_EQ(g.children.size(), 2u);
    EXPECT_EQ(g.children[0].op, c.expected);
    EXPECT_FALSE(g.children[0].negated);
    EXPECT_EQ(g.children[1].op, c.expected);
    EXPECT_TRUE(g.children[1].negated);
    if (c.expected != FilterOp::In && c.expected != FilterOp::Is) {
      EXPECT_EQ(g.children[0].value, c.value);
      EXPECT_EQ(g.children[1].value, c.value);
    }
  }
}

TEST(RestFilter, OperatorNamesRoundTrip) {
  for (const OperatorCase& c : kOperatorCases) {
    ASSERT_TRUE(filterOpFromName(c.op).has_value()) << c.op;
    EXPECT_EQ(*filterOpFromName(c.op), c.expected);
  }
  EXPECT_FALSE(filterOpFromName("EQ").has_value());  // operators are lower case, as PostgREST
  EXPECT_FALSE(filterOpFromName("not").has_value());
  EXPECT_FALSE(filterOpFromName("").has_value());
}

TEST(RestFilter, TopLevelValueIsTheRestVerbatim) {
  EXPECT_EQ(filterOf("name", "eq.a,b(c)\"d\".e").value, "a,b(c)\"d\".e");
  EXPECT_EQ(filterOf("name", "eq.").value, "");  // an empty text is a value
  EXPECT_EQ(filterOf("name", "eq.John Smith").value, "John Smith");
  EXPECT_EQ(filterOf("name", "eq.not.x").value, "not.x");
  EXPECT_EQ(filterOf("name", "eq.héllo wörld").value, "héllo wörld");
}

TEST(RestFilter, LikeTurnsEveryStarIntoPercentAndOnlyLikeDoes) {
  EXPECT_EQ(filterOf("a", "like.*abc*").value, "%abc%");
  EXPECT_EQ(filterOf("a", "ilike.a*b*c").value, "a%b%c");
  EXPECT_EQ(filterOf("a", "like.100%").value, "100%");
  EXPECT_EQ(filterOf("a", "eq.*").value, "*");
  EXPECT_EQ(filterOf("a", "match.a*").value, "a*");
  EXPECT_EQ(filterOf("or", "(a.like.\"*x,y*\")").children[0].value, "%x,y%");
}

TEST(RestFilter, InListsWithQuotesCommasParenthesesAndEscapes) {
  EXPECT_EQ(filterOf("id", "in.(1,2,3)").values, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(filterOf("name", "in.(\"Hebdon,John\",\"Williams,Mary\")").values,
            (std::vector<std::string>{"Hebdon,John", "Williams,Mary"}));
  EXPECT_EQ(filterOf("name", "in.(\"a(b)\",\"c)\")").values,
            (std::vector<std::string>{"a(b)", "c)"}));
  EXPECT_EQ(filterOf("name", R"(in.("Quote:\"","Backslash:\\"))").values,
            (std::vector<std::string>{"Quote:\"", "Backslash:\\"}));
  EXPECT_EQ(filterOf("name", "in.(\"\",x)").values, (std::vector<std::string>{"", "x"}));
  EXPECT_EQ(filterOf("name", "in.(a b, c)").values, (std::vector<std::string>{"a b", " c"}));
}

TEST(RestFilter, EmptyInListIsValidAndEmpty) {
  // PostgREST accepts in.() (it matches no row); so does this grammar.
  const Filter f = filterOf("id", "in.()");
  EXPECT_EQ(f.op, FilterOp::In);
  EXPECT_TRUE(f.values.empty());
  EXPECT_TRUE(filterOf("id", "not.in.()").negated);
}

TEST(RestFilter, IsTakesItsFiveWordsInAnyCase) {
  const std::tuple<std::string, IsValue> cases[] = {
      {"null", IsValue::Null},       {"NULL", IsValue::Null}, {"not_null", IsValue::NotNull},
      {"true", IsValue::True},       {"True", IsValue::True}, {"false", IsValue::False},
      {"unknown", IsValue::Unknown},
  };
  for (const auto& [word, expected] : cases) {
    EXPECT_EQ(filterOf("a", "is." + word).is, expected) << word;
    EXPECT_EQ(filterOf("and", "(a.is." + word + ")").children[0].is, expected) << word;
  }
  EXPECT_TRUE(filterOf("a", "not.is.null").negated);
}

TEST(RestFilter, FullTextSearchWithAndWithoutLanguage) {
  const Filter plain = filterOf("tsv", "fts.cat");
  EXPECT_EQ(plain.language, "");
  EXPECT_EQ(plain.value, "cat");
  const Filter french = filterOf("tsv", "fts(french).amusant");
  EXPECT_EQ(french.language, "french");
  EXPECT_EQ(french.value, "amusant");
  const Filter negated = filterOf("tsv", "not.phfts(english).The Fat Cats");
  EXPECT_TRUE(negated.negated);
  EXPECT_EQ(negated.op, FilterOp::Phfts);
  EXPECT_EQ(negated.language, "english");
  EXPECT_EQ(negated.value, "The Fat Cats");
  EXPECT_EQ(filterOf("tsv", "wfts(simple).x").language, "simple");
  EXPECT_EQ(filterOf("tsv", "plfts(german).x").language, "german");
  // websearch syntax keeps its quotes at the top level; in a group the value is quoted whole.
  EXPECT_EQ(filterOf("tsv", "wfts.\"fat cat\" -dog").value, "\"fat cat\" -dog");
  EXPECT_EQ(filterOf("or", R"((tsv.wfts."\"fat cat\" -dog"))").children[0].value,
            "\"fat cat\" -dog");
  EXPECT_EQ(canonical("or", "(tsv.fts(english).cat,tsv.not.wfts.dog)"),
            "or(tsv.fts(english).\"cat\",tsv.not.wfts.\"dog\")");
}

TEST(RestFilter, ColumnNamesPlainQuotedAndNonAscii) {
  EXPECT_EQ(filterOf("created_at", "gt.1").column, "created_at");
  EXPECT_EQ(filterOf("Name", "eq.1").column, "Name");  // case kept: it is a quoted identifier
  EXPECT_EQ(filterOf("$x9", "eq.1").column, "$x9");
  EXPECT_EQ(filterOf("\"Unit Price\"", "lt.200").column, "Unit Price");
  EXPECT_EQ(filterOf("\"information.cpe\"", "like.*MS*").column, "information.cpe");
  EXPECT_EQ(filterOf("\"limit\"", "eq.5").column, "limit");  // a reserved word as a column
  EXPECT_EQ(filterOf("\"say \\\"hi\\\"\"", "eq.5").column, "say \"hi\"");
  EXPECT_EQ(filterOf("موارد", "eq.1").column, "موارد");
  EXPECT_EQ(filterOf("or", "(\"a,b\".eq.1)").children[0].column, "a,b");
}

TEST(RestFilter, ColumnFiltersRepeatAndAreAllKept) {
  const RestQuery query = parseRestQuery({{"age", "gt.1"}, {"age", "lt.9"}, {"name", "eq.x"}});
  ASSERT_EQ(query.filters.size(), 3u);
  EXPECT_EQ(describeFilter(query.filters[0]), "age.gt.\"1\"");
  EXPECT_EQ(describeFilter(query.filters[1]), "age.lt.\"9\"");
  EXPECT_EQ(describeFilter(query.filters[2]), "name.eq.\"x\"");
}

TEST(RestLogic, OrAndNotGroups) {
  EXPECT_EQ(canonical("or", "(age.lt.18,age.gt.21)"), "or(age.lt.\"18\",age.gt.\"21\")");
  EXPECT_EQ(canonical("and", "(a.eq.1)"), "and(a.eq.\"1\")");
  EXPECT_EQ(canonical("not.or", "(id.eq.1,id.eq.2)"), "not.or(id.eq.\"1\",id.eq.\"2\")");
  EXPECT_EQ(canonical("not.and", "(a.gte.0,a.lte.100)"), "not.and(a.gte.\"0\",a.lte.\"100\")");
  const Filter g = filterOf("not.or", "(id.eq.1)");
  EXPECT_EQ(g.kind, FilterKind::Or);
  EXPECT_TRUE(g.negated);
  EXPECT_EQ(filterOf("and", "(id.eq.1)").kind, FilterKind::And);
}

TEST(RestLogic, NestingWithNotAtEveryLevel) {
  EXPECT_EQ(canonical("or", "(age.eq.14,not.and(age.gte.11,age.lte.17))"),
            "or(age.eq.\"14\",not.and(age.gte.\"11\",age.lte.\"17\"))");
  EXPECT_EQ(
      canonical("and", "(a.eq.1,or(b.in.(1,2),and(c.gt.3,d.lt.4)),not.or(e.is.null,f.not.eq.x))"),
      "and(a.eq.\"1\",or(b.in.(\"1\",\"2\"),and(c.gt.\"3\",d.lt.\"4\")),"
      "not.or(e.is.null,f.not.eq.\"x\"))");
  const Filter deep = filterOf("or", "(and(or(and(x.eq.1))))");
  EXPECT_EQ(deep.children.at(0).children.at(0).children.at(0).children.at(0).column, "x");
}

TEST(RestLogic, ColumnsNamedLikeKeywordsStillWork) {
  // "not", "or" and "and" followed by "." rather than "(" are columns.
  EXPECT_EQ(canonical("or", "(not.eq.1,or.eq.2,and.not.eq.3)"),
            "or(not.eq.\"1\",or.eq.\"2\",and.not.eq.\"3\")");
  EXPECT_EQ(canonical("or", "(not.not.eq.1)"), "or(not.not.eq.\"1\")");
  // not.or not followed by "(" is a column "not" with the operator "or", which does not exist.
  EXPECT_THROW(parseRestQuery({{"or", "(not.or.eq.1)"}}), RestSyntaxError);
}

TEST(RestLogic, QuotedValuesInGroupsHoldCommasParenthesesAndQuotes) {
  EXPECT_EQ(filterOf("or", "(name.eq.\"Smith, John (Jr.)\")").children[0].value,
            "Smith, John (Jr.)");
  EXPECT_EQ(filterOf("or", R"((name.eq."say \"hi\"",x.eq."back\\slash"))").children[0].value,
            "say \"hi\"");
  EXPECT_EQ(filterOf("or", R"((name.eq."say \"hi\"",x.eq."back\\slash"))").children[1].value,
            "back\\slash");
  EXPECT_EQ(filterOf("or", "(name.eq.\"\")").children[0].value, "");
  EXPECT_EQ(filterOf("or", "(name.eq.)").children[0].value, "");
  EXPECT_EQ(filterOf("or", "(name.in.(\"a,b\",c))").children[0].values,
            (std::vector<std::string>{"a,b", "c"}));
}

TEST(RestLogic, BracketedLiteralsNeedNoQuotesInGroups) {
  const Filter g = filterOf("or", "(r.sl.(1,10),r.adj.[1,5),t.cs.{a,b},m.cd.{{1,2},{3,4}})");
  ASSERT_EQ(g.children.size(), 4u);
  EXPECT_EQ(g.children[0].value, "(1,10)");
  EXPECT_EQ(g.children[1].value, "[1,5)");
  EXPECT_EQ(g.children[2].value, "{a,b}");
  EXPECT_EQ(g.children[3].value, "{{1,2},{3,4}}");
  // Quotes inside brackets belong to the literal (JSON or array) and are kept as written.
  const Filter j = filterOf("or", R"((doc.cs.{"a":"x,}y"},t.cs.{"q\"r"}))");
  ASSERT_EQ(j.children.size(), 2u);
  EXPECT_EQ(j.children[0].value, R"({"a":"x,}y"})");
  EXPECT_EQ(j.children[1].value, R"({"q\"r"})");
}

TEST(RestLogic, SpacesAroundGroupItemsAreSkippedValuesKeepTheirs) {
  const Filter g = filterOf("or", "( a.eq.x y , b.eq.2 )");
  ASSERT_EQ(g.children.size(), 2u);
  EXPECT_EQ(g.children[0].column, "a");
  EXPECT_EQ(g.children[0].value, "x y ");
  EXPECT_EQ(g.children[1].column, "b");
  EXPECT_EQ(g.children[1].value, "2 ");
}

TEST(RestLogic, SeveralGroupsAreAllAndedWithColumnFilters) {
  const RestQuery query =
      parseRestQuery({{"or", "(a.eq.1,b.eq.2)"}, {"c", "eq.3"}, {"or", "(d.eq.4,e.eq.5)"}});
  ASSERT_EQ(query.filters.size(), 3u);
  EXPECT_EQ(query.filters[0].kind, FilterKind::Or);
  EXPECT_EQ(query.filters[1].kind, FilterKind::Condition);
  EXPECT_EQ(query.filters[2].kind, FilterKind::Or);
}

TEST(RestLogic, NestingLimitStopsHostileDepth) {
  std::string ok = "(";
  std::string close = ")";
  for (int i = 1; i < 32; ++i) {
    ok += "and(";
    close += ")";
  }
  EXPECT_NO_THROW(parseRestQuery({{"and", ok + "a.eq.1" + close}}));
  std::string deep = "(";
  for (int i = 0; i < 5000; ++i) deep += "or(";
  const std::string message = errorOf({{"or", deep}});
  EXPECT_NE(message.find("and/or groups nest more than 32 deep"), std::string::npos) << message;
}

TEST(RestOrigin, NodesRememberWhereTheyWereWritten) {
  const Filter top = filterOf("age", "gt.5");
  EXPECT_EQ(top.origin.param, "age=gt.5");
  EXPECT_EQ(top.origin.character, 1u);
  const Filter g = filterOf("or", "(a.eq.1,bb.eq.2)");
  EXPECT_EQ(g.origin.character, 1u);
  EXPECT_EQ(g.children[1].origin.param, "or=(a.eq.1,bb.eq.2)");
  EXPECT_EQ(g.children[1].origin.character, 12u);
  // The later catalogue check words its messages the same way.
  EXPECT_EQ(describeRestProblem(g.children[1].origin, "there is no column \"bb\""),
            "there is no column \"bb\" at character 12 of or=(a.eq.1,bb.eq.2)");
  // Characters, not bytes: é is two bytes and one character.
  EXPECT_EQ(filterOf("or", "(é.eq.1,x.eq.2)").children[1].origin.character, 12u);
}

TEST(RestOrder, Variants) {
  const RestQuery query = parseRestQuery({{"order", "a,b.desc,c.asc.nullslast,d.nullsfirst"}});
  ASSERT_EQ(query.order.size(), 4u);
  EXPECT_EQ(query.order[0].column, "a");
  EXPECT_FALSE(query.order[0].descending);
  EXPECT_EQ(query.order[0].nulls, NullsOrder::Default);
  EXPECT_EQ(query.order[1].column, "b");
  EXPECT_TRUE(query.order[1].descending);
  EXPECT_EQ(query.order[1].nulls, NullsOrder::Default);
  EXPECT_EQ(query.order[2].column, "c");
  EXPECT_FALSE(query.order[2].descending);
  EXPECT_EQ(query.order[2].nulls, NullsOrder::Last);
  EXPECT_EQ(query.order[3].column, "d");
  EXPECT_FALSE(query.order[3].descending);
  EXPECT_EQ(query.order[3].nulls, NullsOrder::First);
  EXPECT_EQ(query.order[3].origin.character, 32u);
}

TEST(RestOrder, DescWithNullsEitherWayQuotedNamesAndSpaces) {
  const RestQuery query =
      parseRestQuery({{"order", "age.desc.nullslast, \"Full Name\".nullsfirst.desc"}});
  ASSERT_EQ(query.order.size(), 2u);
  EXPECT_TRUE(query.order[0].descending);
  EXPECT_EQ(query.order[0].nulls, NullsOrder::Last);
  EXPECT_EQ(query.order[1].column, "Full Name");
  EXPECT_TRUE(query.order[1].descending);
  EXPECT_EQ(query.order[1].nulls, NullsOrder::First);
}

TEST(RestPaging, LimitDefaultsAndClamps) {
  EXPECT_EQ(parseRestQuery({}).limit, 50);
  EXPECT_EQ(parseRestQuery({}).offset, 0);
  const std::tuple<std::string, int> cases[] = {
      {"0", 1},     {"1", 1},  {"25", 25}, {"200", 200}, {"201", 200},
      {"500", 200}, {"-5", 1}, {"-0", 1},  {"007", 7},   {"99999999999999999999999999999999", 200},
  };
  for (const auto& [written, expected] : cases) {
    EXPECT_EQ(parseRestQuery({{"limit", written}}).limit, expected) << written;
  }
}

TEST(RestPaging, LimitsCanBeChosenByTheCaller) {
  const RestLimits limits{10, 2, 20};
  EXPECT_EQ(parseRestQuery({}, limits).limit, 10);
  EXPECT_EQ(parseRestQuery({{"limit", "1"}}, limits).limit, 2);
  EXPECT_EQ(parseRestQuery({{"limit", "21"}}, limits).limit, 20);
}

TEST(RestPaging, Offset) {
  EXPECT_EQ(parseRestQuery({{"offset", "0"}}).offset, 0);
  EXPECT_EQ(parseRestQuery({{"offset", "30"}}).offset, 30);
  EXPECT_EQ(parseRestQuery({{"offset", "9223372036854775807"}}).offset, INT64_MAX);
  EXPECT_EQ(errorOf({{"offset", "9223372036854775808"}}),
            "offset is too large, got \"9223372036854775808\"");
}

TEST(RestQueryParams, ReservedKeysAndTheRest) {
  for (const char* key : {"select", "order", "limit", "offset", "or", "and", "not.or", "not.and"}) {
    EXPECT_TRUE(isReservedRestKey(key)) << key;
  }
  for (const char* key : {"Select", "id", "not", "\"limit\"", "or.x"}) {
    EXPECT_FALSE(isReservedRestKey(key)) << key;
  }
  const RestQuery query = parseRestQuery({{"select", "id,name"},
                                          {"age", "gte.18"},
                                          {"order", "id.desc"},
                                          {"limit", "10"},
                                          {"offset", "20"},
                                          {"status", "in.(active,pending)"}});
  ASSERT_TRUE(query.select.has_value());
  EXPECT_EQ(query.select->size(), 2u);
  EXPECT_EQ(query.filters.size(), 2u);
  EXPECT_EQ(query.order.size(), 1u);
  EXPECT_EQ(query.limit, 10);
  EXPECT_EQ(query.offset, 20);
  EXPECT_FALSE(parseRestQuery({}).select.has_value());
}

TEST(RestQueryParams, InjectionLookingValuesStayData) {
  // Values are never SQL: they come back byte for byte, to be bound as parameters.
  const std::string nasty = "1'; drop table users; --";
  EXPECT_EQ(filterOf("id", "eq." + nasty).value, nasty);
  EXPECT_EQ(filterOf("or", "(id.eq.\"" + nasty + "\")").children[0].value, nasty);
  EXPECT_EQ(filterOf("id", "in.(\"" + nasty + "\")").values.at(0), nasty);
  // A quoted name may hold anything printable; it stays one plain string, which the catalogue
  // check will not find (and quoting would keep harmless if it did).
  EXPECT_EQ(filterOf("\"a\\\"; drop table x; --\"", "eq.1").column, "a\"; drop table x; --");
}
