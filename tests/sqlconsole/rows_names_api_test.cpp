// ctest-label: api (starts a real berthd)
// Column names PostgREST reads as they stand, over real HTTP against a real table: a filter on
// "Full Name" written Full Name=eq.Ada (sent as %20 or as +), in order= and select= too, and
// nic-hdl with its dash; on /rows and on /_data. A loosely written name that is not a column
// is still refused with the message the strict grammar gave (rest_loose_names_test.cpp has
// the grammar's side).
#include "rows_support.hpp"

using namespace berth::testing;
using namespace berth::testing::projects_api;
using namespace berth::testing::rows_api;
using nlohmann::json;

namespace {

const char* kSchema = R"SQL(
  CREATE TABLE people (id int PRIMARY KEY, "Full Name" text, "nic-hdl" text, age int);
  INSERT INTO people VALUES (1, 'Ada', 'ADA-1', 36), (2, 'Bob', 'BOB-2', 17),
                            (3, 'Cy', NULL, 52), (4, 'Ada', 'ADA-4', 20);
)SQL";

const std::string kQuoteName =
    "put a name with characters other than letters, digits, _ and $ in double quotes";

class RowsNamesApi : public SqlconsoleServerSuite {
 protected:
  static void SetUpTestSuite() {
    startServer();
    owner = new Account(makeAccount(*server, "namesown"));
    mustCreate(api(*owner), "names");
    projectSession(*server, kProject).execSimple(kSchema);
  }
  static void TearDownTestSuite() {
    delete owner;
    dropServer();
  }
  // GET .../tables/people/rows with the query string exactly as given (already encoded).
  static HttpResult rows(const std::string& raw_query) {
    return api(*owner).get("/projects/" + std::string(kProject) + "/tables/people/rows?" +
                           raw_query);
  }
  static std::vector<int> idsOf(const HttpResult& r) {
    if (r.status != 200) {
      ADD_FAILURE() << r.status << " " << r.body;
      return {};
    }
    return ids(r.json()["rows"]);
  }
  static constexpr const char* kProject = "names-namesown";
  static inline Account* owner = nullptr;
};

}  // namespace

TEST_F(RowsNamesApi, AFilterOnAColumnWithASpaceWorksWrittenWithPercent20OrPlus) {
  EXPECT_EQ(idsOf(rows("Full%20Name=eq.Ada&order=id")), (std::vector<int>{1, 4}));
  EXPECT_EQ(idsOf(rows("Full+Name=eq.Ada&order=id")), (std::vector<int>{1, 4}));
  EXPECT_EQ(idsOf(rows("Full+Name=neq.Ada&order=id")), (std::vector<int>{2, 3}));
  EXPECT_EQ(idsOf(rows("Full%20Name=in.(Bob,Cy)&age=gt.20")), (std::vector<int>{3}));
  // Quoted, as before, and inside a group.
  EXPECT_EQ(idsOf(rows("%22Full%20Name%22=eq.Bob")), (std::vector<int>{2}));
  EXPECT_EQ(idsOf(rows("or=(Full%20Name.eq.Cy,id.eq.2)&order=id")), (std::vector<int>{2, 3}));
  // A dash, as PostgREST takes it.
  EXPECT_EQ(idsOf(rows("nic-hdl=like.ADA*&order=id")), (std::vector<int>{1, 4}));
}

TEST_F(RowsNamesApi, OrderAndSelectTakeTheNameToo) {
  auto r = rows("order=Full+Name.desc,id.desc&select=id,Full+Name");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["rows"], json::parse(R"([{"id":3,"Full Name":"Cy"},{"id":2,"Full Name":"Bob"},
                            {"id":4,"Full Name":"Ada"},{"id":1,"Full Name":"Ada"}])"));
  r = rows("order=%22Full%20Name%22,id&select=id,name:%22Full%20Name%22,nic-hdl&limit=2");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["rows"], json::parse(R"([{"id":1,"name":"Ada","nic-hdl":"ADA-1"},
                                             {"id":4,"name":"Ada","nic-hdl":"ADA-4"}])"));
  r = rows("select=Full%20Name::text&Full%20Name=eq.Bob");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["rows"], json::parse(R"([{"Full Name":"Bob"}])"));
}

TEST_F(RowsNamesApi, PatchAndDeleteFilterOnItAsWell) {
  const std::string path = "/projects/" + std::string(kProject) + "/tables/people/rows";
  auto r = api(*owner).patch(path + "?Full+Name=eq.Cy", json{{"age", 53}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto db = projectSession(*server, kProject);
  EXPECT_EQ(scalar(db, "SELECT age FROM people WHERE id = 3"), "53");
  r = api(*owner).patch(path + "?Full+Name=eq.Cy", json{{"age", 52}});
  ASSERT_EQ(r.status, 200) << r.body;
}

TEST_F(RowsNamesApi, ANameWithASpaceThatIsNoColumnIsRefusedAsBefore) {
  auto r = rows("Last%20Name=eq.Ada");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r),
            "unexpected \" \" after the column name at character 5 of Last Name=eq.Ada; a filter "
            "is written column=operator.value; " +
                kQuoteName);
  r = rows("Last+Name=eq.Ada");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r),
            "unexpected \" \" after the column name at character 5 of Last Name=eq.Ada; a filter "
            "is written column=operator.value; " +
                kQuoteName);
  r = rows("order=Last+Name");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r),
            "expected \",\" or the end after an order term, found \"N\" at character 12 of "
            "order=Last Name; write a term as column, column.desc or column.asc.nullslast");
  r = rows("select=id,Last+Name");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r),
            "expected \",\" or the end of select, found \"N\" at character 16 of select=id,Last "
            "Name; separate columns with commas");
  r = rows("or=(Last+Name.eq.x,id.eq.1)");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r),
            "expected \".\" after the column name, found \" \" at character 9 of or=(Last "
            "Name.eq.x,id.eq.1); write a condition in a group as column.operator.value, for "
            "example Last.eq.5");
  // Quoted, it is an unknown column like any other.
  r = rows("%22Last%20Name%22=eq.Ada");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(errorText(r),
            "no column named \"Last Name\" in people at character 1 of \"Last Name\"=eq.Ada; the "
            "columns are id, Full Name, nic-hdl, age");
}

TEST_F(RowsNamesApi, TheDataApiReadsThemAsPostgrestDoes) {
  auto settings =
      api(*owner).raw("PUT", "/projects/" + std::string(kProject) + "/data-api/tables/people",
                      json({{"read", true}}).dump(), {"Content-Type: application/json"});
  ASSERT_EQ(settings.status, 200) << settings.body;
  auto key = api(*owner).get("/projects/" + std::string(kProject) + "/data-api");
  ASSERT_EQ(key.status, 200) << key.body;
  const auto data = [&](const std::string& raw_query) {
    HttpRequestSpec spec;
    spec.method = "GET";
    spec.url = server->baseUrl() + "/_data/people?" + raw_query;
    spec.headers = {"Host: " + std::string(kProject) + ".localhost",
                    "apikey: " + key.json()["key"].get<std::string>()};
    return send(spec);
  };
  auto r = data("Full+Name=eq.Ada&select=id,Full%20Name&order=id");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json(), json::parse(R"([{"id":1,"Full Name":"Ada"},{"id":4,"Full Name":"Ada"}])"));
  r = data("Last+Name=eq.Ada");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json()["code"], "PGRST100");
  EXPECT_EQ(r.json()["message"],
            "unexpected \" \" after the column name at character 5 of Last Name=eq.Ada; a filter "
            "is written column=operator.value; " +
                kQuoteName);
}
