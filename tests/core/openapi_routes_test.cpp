// docs/openapi.yaml against `berthd routes --json` (every route the core and the feature
// plugins register), both ways: a route missing from either side fails, and so does a wrong
// method, a wrong public flag, or a JSON body whose required fields or field types differ.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "support/berthd_process.hpp"
#include "support/openapi_document.hpp"
#include "util/process.hpp"

using namespace berth::testing;

namespace {

const std::vector<std::string> kMethods = {"get",   "put",  "post",   "delete",
                                           "patch", "head", "options"};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

class OpenApiRoutes : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string dir = makeTempDir("berth-routes-");
    std::ofstream(dir + "/berth.yaml") << "data_dir: " << dir << "/var\n";
    auto run = berth::core::runCommand(
        {BERTH_TEST_BERTHD, "--config", dir + "/berth.yaml", "routes", "--json"});
    removeTree(dir);
    ASSERT_TRUE(run.status.ok()) << run.output;
    // The listing is printed indented, so it ends at the first line that is "]" alone; a
    // warning berthd logs comes on lines of its own.
    size_t end = run.output.find("\n]");
    ASSERT_NE(end, std::string::npos) << run.output;
    size_t start = run.output.find('[');
    routes = nlohmann::json::parse(run.output.substr(start, end + 2 - start));
    document = loadOpenApiDocument();
  }

  // A local $ref ("#/components/schemas/X") followed to what it names.
  static const nlohmann::json& resolved(const nlohmann::json& node) {
    if (!node.is_object() || !node.contains("$ref")) return node;
    std::string ref = node["$ref"];
    EXPECT_EQ(ref.rfind("#/", 0), 0u) << "only local references: " << ref;
    return resolved(document.at(nlohmann::json::json_pointer(ref.substr(1))));
  }

  static nlohmann::json routes, document;
};
nlohmann::json OpenApiRoutes::routes, OpenApiRoutes::document;

TEST_F(OpenApiRoutes, BerthdListsTheCoreAndEveryFeaturePlugin) {
  std::set<std::string> owners;
  for (const auto& r : routes) owners.insert(r["owner"].get<std::string>());
  EXPECT_EQ(owners, (std::set<std::string>{"core", "projects", "runtime", "scheduler", "sqlconsole",
                                           "storage", "templates"}));
  EXPECT_GT(routes.size(), 60u);
}

TEST_F(OpenApiRoutes, EveryRouteIsInTheDocument) {
  const auto& paths = document.at("paths");
  for (const auto& r : routes) {
    std::string path = r["path"], method = r["method"];
    SCOPED_TRACE(method + " " + path);
    ASSERT_TRUE(paths.contains(path)) << "not in docs/openapi.yaml";
    const auto& item = paths[path];
    if (method == "*") {
      EXPECT_EQ(item.value("x-berth-any-method", false), true)
          << "a route of every method needs x-berth-any-method: true";
      EXPECT_TRUE(item.contains("get"));
    } else {
      EXPECT_TRUE(item.contains(lower(method))) << "the document has no " << lower(method);
    }
    if (r["host"] == "project") {
      EXPECT_EQ(item.value("x-berth-host", ""), "project");
    }
  }
}

TEST_F(OpenApiRoutes, EveryDocumentedOperationIsARoute) {
  for (const auto& entry : document.at("paths").items()) {
    // Named copies: clang 14 refuses a structured binding captured by the lambda below.
    const std::string path = entry.key();
    const nlohmann::json& item = entry.value();
    for (const std::string& method : kMethods) {
      if (!item.contains(method)) continue;
      bool found = std::any_of(routes.begin(), routes.end(), [&](const nlohmann::json& r) {
        return r["path"] == path && (r["method"] == "*" || lower(r["method"]) == method);
      });
      EXPECT_TRUE(found) << method << " " << path << " is documented but berthd has no such route";
    }
  }
}

TEST_F(OpenApiRoutes, PublicFlagsAgree) {
  for (const auto& r : routes) {
    if (r["method"] == "*" || r["host"] != "api") continue;
    const auto& op = document["paths"][r["path"].get<std::string>()][lower(r["method"])];
    bool documented_public = op.contains("security") && op["security"].empty();
    EXPECT_EQ(documented_public, r["public"].get<bool>())
        << r["method"] << " " << r["path"]
        << (r["public"].get<bool>() ? " is public: give it security: []"
                                    : " needs a token: the document says security: []");
  }
}

TEST_F(OpenApiRoutes, BodiesAgree) {
  for (const auto& r : routes) {
    if (r["method"] == "*") continue;
    std::string where = r["method"].get<std::string>() + " " + r["path"].get<std::string>();
    SCOPED_TRACE(where);
    const auto& op = document["paths"][r["path"].get<std::string>()][lower(r["method"])];
    if (r["body"] == "none") continue;
    ASSERT_TRUE(op.contains("requestBody")) << "the route takes a body";
    const auto& content = resolved(op["requestBody"]).at("content");
    if (r["body"] == "raw") {
      EXPECT_EQ(op.value("x-berth-max-body-bytes", uint64_t{0}),
                r["max_body_bytes"].get<uint64_t>())
          << "x-berth-max-body-bytes";
      continue;
    }
    ASSERT_TRUE(content.contains("application/json"));
    const auto& schema = resolved(content["application/json"].at("schema"));
    std::set<std::string> required_routes, required_doc;
    for (const auto& f : r["fields"])
      if (f["required"].get<bool>()) required_routes.insert(f["name"].get<std::string>());
    for (const auto& name : schema.value("required", nlohmann::json::array()))
      required_doc.insert(name.get<std::string>());
    EXPECT_EQ(required_doc, required_routes) << "required body fields";
    for (const auto& f : r["fields"]) {
      std::string name = f["name"];
      ASSERT_TRUE(schema.contains("properties") && schema["properties"].contains(name))
          << "body field " << name << " is not documented";
      const auto& property = resolved(schema["properties"][name]);
      const auto& type = property.value("type", nlohmann::json());
      bool matches = type == f["type"] || (type.is_array() && std::find(type.begin(), type.end(),
                                                                        f["type"]) != type.end());
      EXPECT_TRUE(matches) << "body field " << name << " is " << f["type"] << ", documented as "
                           << type.dump();
    }
  }
}

}  // namespace
