// Names PostgREST reads as they stand though the strict grammar wants them quoted: spaces
// (Full Name=eq.Ada, order=Full Name.desc, select=id,Full Name) and dashes (nic-hdl). The
// grammar reads them only when the strict reading refuses the parameter, marks the node with
// the strict refusal, and the catalogue step takes such a name only when it is a column (or a
// table to embed); any other is refused with the strict grammar's message, as before.
#include <gtest/gtest.h>

#include "rest_filter.hpp"
#include "rest_order.hpp"
#include "rest_query.hpp"
#include "rest_select.hpp"
#include "rest_sql.hpp"

using namespace berth::sqlconsole;

namespace {

const std::string kQuoteName =
    "put a name with characters other than letters, digits, _ and $ in double quotes";

std::string errorOf(const RestParams& params) {
  try {
    parseRestQuery(params);
  } catch (const RestSyntaxError& e) {
    return e.what();
  }
  return "(no error)";
}

CatalogColumn col(std::string name, std::string type) {
  CatalogColumn c;
  c.name = std::move(name);
  c.type = std::move(type);
  return c;
}

Catalog people() {
  Catalog c;
  c.tables = {CatalogTable{"people",
                           RelationKind::Table,
                           {col("id", "integer"), col("Full Name", "text"), col("nic-hdl", "text")},
                           {}}};
  return c;
}

std::string refusalOf(const RestParams& params) {
  try {
    buildRead(people(), "people", parseRestQuery(params));
  } catch (const RestRefusal& e) {
    return e.what();
  }
  return "(no refusal)";
}

}  // namespace

TEST(RestLooseNames, AFilterKeyWithASpaceNamesTheColumnAndKeepsTheStrictRefusal) {
  const Filter f = parseColumnFilter("Full Name", "eq.Ada");
  EXPECT_EQ(f.column, "Full Name");
  EXPECT_EQ(f.op, FilterOp::Eq);
  EXPECT_EQ(f.value, "Ada");
  EXPECT_EQ(f.origin.loose_refusal,
            "unexpected \" \" after the column name at character 5 of Full Name=eq.Ada; a "
            "filter is written column=operator.value; " +
                kQuoteName);
  EXPECT_EQ(f.origin.character, 1u);
}

TEST(RestLooseNames, StrictNamesCarryNoRefusal) {
  EXPECT_EQ(parseColumnFilter("age", "eq.5").origin.loose_refusal, "");
  const Filter quoted = parseColumnFilter("\"Full Name\"", "eq.Ada");
  EXPECT_EQ(quoted.column, "Full Name");
  EXPECT_EQ(quoted.origin.loose_refusal, "");
  EXPECT_EQ(parseOrder("\"Full Name\".desc")[0].origin.loose_refusal, "");
  EXPECT_EQ(parseSelect("\"Full Name\"")[0].origin.loose_refusal, "");
}

TEST(RestLooseNames, SpacesAtTheEndsAreDroppedAndDashesJoinPiecesAsInPostgrest) {
  EXPECT_EQ(parseColumnFilter(" Full Name ", "eq.x").column, "Full Name");
  EXPECT_EQ(parseColumnFilter("nic-hdl", "eq.x").column, "nic-hdl");
  EXPECT_EQ(parseColumnFilter("a - b", "eq.x").column, "a-b");
  EXPECT_EQ(parseColumnFilter("Zoë Straße", "eq.x").column, "Zoë Straße");
  // A JSON path is still a JSON path, and a dash needs a piece after it.
  EXPECT_EQ(errorOf({{"data->>x", "eq.1"}}),
            "JSON paths (-> and ->>) are not supported at character 5 of data->>x=eq.1; name a "
            "whole column");
  EXPECT_EQ(errorOf({{"a-", "eq.1"}}),
            "unexpected \"-\" after the column name at character 2 of a-=eq.1; a filter is "
            "written column=operator.value; " +
                kQuoteName);
  EXPECT_EQ(errorOf({{"a b;c", "eq.1"}}),
            "unexpected \" \" after the column name at character 2 of a b;c=eq.1; a filter is "
            "written column=operator.value; " +
                kQuoteName);
}

TEST(RestLooseNames, AParameterNeitherReadingTakesKeepsTheStrictMessage) {
  // The value is wrong too: the message is the one the strict grammar gave first.
  EXPECT_EQ(errorOf({{"Unit Price", "lt"}}),
            "unexpected \" \" after the column name at character 5 of Unit Price=lt; a filter "
            "is written column=operator.value; " +
                kQuoteName);
  EXPECT_EQ(errorOf({{std::string(40, 'a') + " " + std::string(40, 'b'), "eq.1"}}),
            "unexpected \" \" after the column name at character 41 of " + std::string(40, 'a') +
                " " + std::string(40, 'b') + "=eq.1; a filter is written column=operator.value; " +
                kQuoteName);
}

TEST(RestLooseNames, OrderAndSelectAndGroupsTakeThemToo) {
  const auto order = parseOrder("Full Name.desc, id");
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0].column, "Full Name");
  EXPECT_TRUE(order[0].descending);
  EXPECT_EQ(order[0].origin.loose_refusal,
            "expected \",\" or the end after an order term, found \"N\" at character 12 of "
            "order=Full Name.desc, id; write a term as column, column.desc or "
            "column.asc.nullslast");
  EXPECT_EQ(order[1].column, "id");
  EXPECT_EQ(order[1].origin.loose_refusal, "");

  const SelectList select = parseSelect("id,Full Name,name:Full Name::text,Order Items(*)");
  EXPECT_EQ(describeSelect(select), "id,Full Name,name:Full Name::text,Order Items(*)");
  EXPECT_EQ(select[0].origin.loose_refusal, "");
  EXPECT_NE(select[1].origin.loose_refusal, "");
  EXPECT_NE(select[2].origin.loose_refusal, "");
  EXPECT_NE(select[3].origin.loose_refusal, "");

  const Filter group = parseLogicFilter("or", "(Full Name.eq.Ada,id.gt.1)");
  ASSERT_EQ(group.children.size(), 2u);
  EXPECT_EQ(group.children[0].column, "Full Name");
  EXPECT_NE(group.children[0].origin.loose_refusal, "");
  EXPECT_EQ(group.children[1].origin.loose_refusal, "");
}

TEST(RestLooseNames, AliasesHintsAndGroupKeywordsStayStrict) {
  EXPECT_EQ(errorOf({{"select", "My Name:id"}}),
            "expected \",\" or the end of select, found \"N\" at character 11 of select=My "
            "Name:id; separate columns with commas");
  EXPECT_EQ(errorOf({{"select", "t!my fk(*)"}}),
            "expected \"(\" and the embedded table's columns after the hint, found \" \" at "
            "character 12 of select=t!my fk(*); write it as table!foreign_key(columns)");
  EXPECT_EQ(errorOf({{"or", "(or (a.eq.1))"}}),
            "expected \".\" after the column name, found \" \" at character 7 of or=(or "
            "(a.eq.1)); write a condition in a group as column.operator.value, for example "
            "or.eq.5");
}

TEST(RestLooseNames, TheCatalogueTakesALooseNameOnlyWhenItIsAColumn) {
  const SqlStatement s = buildRead(people(), "people",
                                   parseRestQuery({{"Full Name", "eq.Ada"},
                                                   {"nic-hdl", "neq.x"},
                                                   {"order", "Full Name.desc"},
                                                   {"select", "id,Full Name"}}),
                                   ReadOptions{false});
  EXPECT_NE(s.text.find("t0.\"Full Name\" = $1"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("t0.\"nic-hdl\" <> $2"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("ORDER BY t0.\"Full Name\" DESC"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("t0.\"Full Name\" AS \"Full Name\""), std::string::npos) << s.text;

  // Not a column: the strict grammar's refusal, word for word.
  EXPECT_EQ(refusalOf({{"Last Name", "eq.x"}}),
            "unexpected \" \" after the column name at character 5 of Last Name=eq.x; a filter "
            "is written column=operator.value; " +
                kQuoteName);
  EXPECT_EQ(refusalOf({{"order", "Last Name"}}),
            "expected \",\" or the end after an order term, found \"N\" at character 12 of "
            "order=Last Name; write a term as column, column.desc or column.asc.nullslast");
  EXPECT_EQ(refusalOf({{"select", "id,Last Name"}}),
            "expected \",\" or the end of select, found \"N\" at character 16 of select=id,Last "
            "Name; separate columns with commas");
  EXPECT_EQ(refusalOf({{"select", "Other Table(*)"}}),
            "expected \",\" or the end of select, found \"T\" at character 14 of select=Other "
            "Table(*); separate columns with commas");
  // A quoted name that is not a column is refused as any unknown column is.
  EXPECT_EQ(refusalOf({{"\"Last Name\"", "eq.x"}}),
            "no column named \"Last Name\" in people at character 1 of \"Last Name\"=eq.x; the "
            "columns are id, Full Name, nic-hdl");
}
