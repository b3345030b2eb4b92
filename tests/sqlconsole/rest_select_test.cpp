// The select parameter of the rows grammar: columns, *, aliases, casts, embeds with hints,
// nesting, and the errors peculiar to select.
#include <gtest/gtest.h>

#include <string>

#include "rest_query.hpp"
#include "rest_select.hpp"

using namespace berth::sqlconsole;

namespace {

std::string canonical(const std::string& value) {
  return describeSelect(parseSelect(value));
}

std::string errorOf(const std::string& value) {
  try {
    parseSelect(value);
  } catch (const RestSyntaxError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(RestSelect, ColumnsAndStar) {
  const SelectList list = parseSelect("id,name");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].kind, SelectKind::Column);
  EXPECT_EQ(list[0].name, "id");
  EXPECT_EQ(list[1].name, "name");
  const SelectList star = parseSelect("*");
  ASSERT_EQ(star.size(), 1u);
  EXPECT_EQ(star[0].kind, SelectKind::Star);
  EXPECT_EQ(canonical("*,full_name"), "*,full_name");
}

TEST(RestSelect, AliasesAndCasts) {
  const SelectList list = parseSelect("fullName:full_name,salary::text,pay:salary::numeric[]");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].alias, "fullName");
  EXPECT_EQ(list[0].name, "full_name");
  EXPECT_EQ(list[0].cast, "");
  EXPECT_EQ(list[1].alias, "");
  EXPECT_EQ(list[1].name, "salary");
  EXPECT_EQ(list[1].cast, "text");
  EXPECT_EQ(list[2].alias, "pay");
  EXPECT_EQ(list[2].name, "salary");
  EXPECT_EQ(list[2].cast, "numeric[]");
  EXPECT_EQ(canonical("a:\"Full Name\"::varchar"), "a:Full Name::varchar");
}

TEST(RestSelect, EmbedsBothWaysNestedWithAliasesAndHints) {
  const SelectList list =
      parseSelect("id,customers(name,orders(id,amount::text)),billing:addresses!billing(*)");
  ASSERT_EQ(list.size(), 3u);
  const SelectItem& customers = list[1];
  EXPECT_EQ(customers.kind, SelectKind::Embed);
  EXPECT_EQ(customers.name, "customers");
  ASSERT_EQ(customers.children.size(), 2u);
  EXPECT_EQ(customers.children[0].name, "name");
  const SelectItem& orders = customers.children[1];
  EXPECT_EQ(orders.kind, SelectKind::Embed);
  ASSERT_EQ(orders.children.size(), 2u);
  EXPECT_EQ(orders.children[1].cast, "text");
  const SelectItem& billing = list[2];
  EXPECT_EQ(billing.kind, SelectKind::Embed);
  EXPECT_EQ(billing.alias, "billing");
  EXPECT_EQ(billing.name, "addresses");
  EXPECT_EQ(billing.hint, "billing");
  ASSERT_EQ(billing.children.size(), 1u);
  EXPECT_EQ(billing.children[0].kind, SelectKind::Star);
  EXPECT_EQ(canonical("name,billing_address:addresses!billing(name),"
                      "shipping_address:addresses!shipping(name)"),
            "name,billing_address:addresses!billing(name),shipping_address:addresses!shipping("
            "name)");
}

TEST(RestSelect, SpacesAroundItemsAreSkipped) {
  EXPECT_EQ(canonical(" id , customers( name , id ) "), "id,customers(name,id)");
}

TEST(RestSelect, TheSameTableTwiceNeedsAliases) {
  EXPECT_EQ(canonical("a:t(id),b:t(id)"), "a:t(id),b:t(id)");
  EXPECT_EQ(errorOf("id,id"),
            "\"id\" is selected twice at character 11 of select=id,id; give one of them another "
            "name, as in other_id:id");
  EXPECT_EQ(errorOf("x:a,x:b"),
            "\"x\" is selected twice at character 12 of select=x:a,x:b; give one of them another "
            "name, as in other_x:b");
  // The same key in different lists is fine: they are different JSON objects.
  EXPECT_EQ(canonical("id,t(id)"), "id,t(id)");
}

TEST(RestSelect, OriginsPointAtTheItem) {
  const SelectList list = parseSelect("id,customers(name)");
  EXPECT_EQ(list[1].origin.param, "select=id,customers(name)");
  EXPECT_EQ(list[1].origin.character, 11u);
  EXPECT_EQ(list[1].children[0].origin.character, 21u);
}

TEST(RestSelect, DeepEmbedsStopAtTheNestingLimit) {
  std::string ok;
  std::string close;
  for (int i = 0; i < 32; ++i) {
    ok += "t(";
    close += ")";
  }
  EXPECT_NO_THROW(parseSelect(ok + "id" + close));
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += "t(";
  EXPECT_NE(errorOf(deep).find("embedded tables nest more than 32 deep"), std::string::npos);
}

TEST(RestSelect, Malformed) {
  EXPECT_EQ(errorOf(""),
            "select is empty at character 8 of select=; list columns, as in select=id,name, or "
            "leave select out");
  EXPECT_EQ(errorOf("id,,name"),
            "expected a column name, found \",\" at character 11 of "
            "select=id,,name");
  EXPECT_EQ(errorOf("id,"), "expected a column name, found the end at character 11 of select=id,");
  EXPECT_EQ(errorOf("customers()"),
            "\"customers\"() selects nothing at character 17 of select=customers(); write "
            "customers(*) for all its columns");
  EXPECT_EQ(errorOf("customers(name"),
            "expected \",\" or \")\" in the columns of \"customers\", found the end at character "
            "22 of select=customers(name; separate columns with commas and close the list with "
            "\")\"");
  EXPECT_EQ(errorOf("id)"),
            "expected \",\" or the end of select, found \")\" at character 10 of select=id); "
            "separate columns with commas");
  EXPECT_EQ(errorOf("amount::"),
            "expected a type name after \"::\", found the end at character 16 of "
            "select=amount::; write a cast as column::text");
  EXPECT_EQ(errorOf("amount::varchar(10)"),
            "expected \",\" or the end of select, found \"(\" at character 23 of "
            "select=amount::varchar(10); separate columns with commas");
  EXPECT_EQ(errorOf("*::text"),
            "* cannot be cast at character 8 of select=*::text; cast single "
            "columns, as in amount::text");
  EXPECT_EQ(errorOf("all:*"),
            "* cannot have an alias at character 12 of select=all:*; alias single columns");
  EXPECT_EQ(errorOf("a!b"),
            "expected \"(\" and the embedded table's columns after the hint, found the end at "
            "character 11 of select=a!b; write it as table!foreign_key(columns)");
  EXPECT_EQ(errorOf("a!b!c(*)"),
            "an embedded table takes one !hint at character 11 of select=a!b!c(*); name one "
            "foreign key, as in addresses!billing(*)");
  EXPECT_EQ(errorOf("t!inner(*)"),
            "join kinds (!inner, !left) are not supported at character 10 of select=t!inner(*); "
            "to name a foreign key called inner, quote it: table!\"inner\"(columns)");
  EXPECT_EQ(canonical("t!\"inner\"(*)"), "t!inner(*)");
  EXPECT_EQ(errorOf("t(id)::text"),
            "an embedded table cannot be cast at character 13 of select=t(id)::text; cast its "
            "columns inside the parentheses");
  EXPECT_EQ(errorOf("data->x"),
            "JSON paths (-> and ->>) are not supported at character 12 of select=data->x; name "
            "a whole column");
  EXPECT_EQ(errorOf("...t(id)"),
            "expected a column name, found \".\" at character 8 of select=...t(id); put a name "
            "with characters other than letters, digits, _ and $ in double quotes");
}
