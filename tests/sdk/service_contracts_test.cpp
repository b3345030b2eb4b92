// SPDX-License-Identifier: MIT
// The service contracts of <berth/services/*.hpp>: every writer's JSON is what its parser reads
// back (round trips), with the field names of the wire; a missing or mistyped field is refused
// with a berth::Error that names it (400 in a request, 500 in an answer); the typed clients
// through a fake host's services; and the project host cache's one expiry rule.
#include <gtest/gtest.h>
#include <berth/services/accounts_usage.hpp>
#include <berth/services/project_host_cache.hpp>
#include <berth/services/projects_directory.hpp>
#include <berth/services/runtime_logs.hpp>
#include <berth/services/runtime_status.hpp>
#include <berth/services/storage_blobs.hpp>
#include <berth/services/storage_stats.hpp>
#include <berth/testing/fake_host.hpp>

#include "contract_checks.hpp"

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace {

using berth::Error;
using nlohmann::json;
namespace directory = berth::projects_directory;
namespace blobs = berth::storage_blobs;

using berth::testing::keysOf;
using berth::testing::refusal;

directory::Project sampleProject() {
  directory::Project p;
  p.id = "0b7e";
  p.name = "shop";
  p.label = "Shop";
  p.account_id = "acc1";
  p.host = "shop.apps.test";
  p.url = "http://shop.apps.test:8080";
  p.region = "eu";
  p.cmd = "node server.js";
  p.ignore_dockerfile = true;
  p.cache_enabled = false;
  p.cache_ttl = 120;
  return p;
}

// ---- projects.directory.v1 ------------------------------------------------------------------

TEST(ProjectsDirectoryContract, AProjectRoundTripsWithTheWireNames) {
  const directory::Project p = sampleProject();
  json wire = directory::toJson(p);
  EXPECT_EQ(keysOf(wire),
            (std::set<std::string>{"id", "name", "label", "account_id", "host", "url", "region",
                                   "cmd", "ignore_dockerfile", "cache_enabled", "cache_ttl"}));
  EXPECT_EQ(wire["cache_ttl"], 120);
  EXPECT_EQ(wire["url"], "http://shop.apps.test:8080");
  EXPECT_EQ(directory::parseProject(wire), p);
  // What a plugin built against the old SDK writes (a DOM, any order) reads the same.
  EXPECT_EQ(directory::parseProject(json::parse(wire.dump())), p);
}

TEST(ProjectsDirectoryContract, APublicAddressKeepsTheSchemeAndPortOfTheProjectsOwn) {
  namespace directory = berth::projects_directory;
  EXPECT_EQ(directory::addressOn("http://blog-ann1.localhost:8080", "www.example.test"),
            "http://www.example.test:8080");
  EXPECT_EQ(directory::addressOn("https://blog-ann1.apps.example.com", "blog.example.org"),
            "https://blog.example.org");
  EXPECT_EQ(directory::parsePublicUrl(directory::publicUrlJson("http://x.test")), "http://x.test");
  EXPECT_THROW(directory::parsePublicUrl(json::object()), Error);
}

TEST(ProjectsDirectoryContract, AnAnswerWithoutAFieldIsRefusedNamingIt) {
  json wire = directory::toJson(sampleProject());
  wire.erase("account_id");
  EXPECT_EQ(refusal([&] { directory::parseProject(wire, directory::kFind); }),
            "500 service projects.directory.v1 (find) answered without \"account_id\" (a string)");
  wire = directory::toJson(sampleProject());
  wire["cache_enabled"] = "yes";
  EXPECT_EQ(refusal([&] { directory::parseProject(wire); }),
            "500 service projects.directory.v1 (get) answered without \"cache_enabled\" (true or "
            "false)");
  wire["cache_enabled"] = true;
  wire["cache_ttl"] = -1;
  EXPECT_EQ(refusal([&] { directory::parseProject(wire); }),
            "500 service projects.directory.v1 (get) answered without \"cache_ttl\" (0 to 31536000 "
            "seconds)");
  EXPECT_EQ(refusal([] { directory::parseProject(json::array()); }),
            "500 service projects.directory.v1 (get) answered something that is not a JSON object");
}

TEST(ProjectsDirectoryContract, RequestsRoundTripAndReadAbsentFieldsAsEmpty) {
  EXPECT_EQ(directory::toJson(directory::FindRequest{"acc1", "shop"}),
            json::parse(R"({"account_id": "acc1", "name": "shop"})"));
  directory::FindRequest find = directory::parseFindRequest(json::parse(R"({"name": "shop"})"));
  EXPECT_EQ(find.account_id, "");  // reaches nothing: find answers 404
  EXPECT_EQ(find.name, "shop");
  EXPECT_EQ(refusal([] { directory::parseFindRequest(json::parse(R"({"name": 5})")); }),
            "400 name must be a string");

  // {id} or {name}; the id decides, a 404 names the name when there is one.
  EXPECT_EQ(directory::toJson(directory::ProjectKey::byId("p1")), json::parse(R"({"id": "p1"})"));
  directory::ProjectKey both = directory::parseProjectKey(json::parse(R"({"id":"p1","name":"n"})"));
  EXPECT_EQ(both.id, "p1");
  EXPECT_EQ(both.shown(), "n");
  EXPECT_EQ(directory::parseProjectKey(json::parse(R"({"id": "p1"})")).shown(), "p1");
  EXPECT_EQ(directory::parseProjectKey(json::object()).shown(), "");

  directory::SecretsRequest secrets{directory::ProjectKey::byId("p1"), "build"};
  EXPECT_EQ(directory::toJson(secrets), json::parse(R"({"id": "p1", "scope": "build"})"));
  EXPECT_EQ(directory::parseSecretsRequest(json::parse(R"({"id": "p1"})")).scope, "runtime");
  directory::CanManageRequest manage{"acc1", directory::ProjectKey::byId("p1")};
  EXPECT_EQ(directory::toJson(manage), json::parse(R"({"account_id": "acc1", "id": "p1"})"));
  EXPECT_EQ(directory::parseCanManageRequest(directory::toJson(manage)).project.id, "p1");
  EXPECT_EQ(directory::parseByHostRequest(directory::byHostJson("shop.apps.test")),
            "shop.apps.test");
  EXPECT_EQ(directory::parseAccountRequest(directory::accountJson("acc1")), "acc1");
}

TEST(ProjectsDirectoryContract, TheOtherAnswersRoundTrip) {
  directory::Database db{"postgresql://r:pw@127.0.0.1:5432/d", "d", "r"};
  EXPECT_EQ(keysOf(directory::toJson(db)), (std::set<std::string>{"url", "database", "role"}));
  EXPECT_EQ(directory::parseDatabase(directory::toJson(db)), db);
  EXPECT_EQ(refusal([] { directory::parseDatabase(json::parse(R"({"url": "x"})")); }),
            "500 service projects.directory.v1 (database) answered without \"database\" (a "
            "string)");

  directory::SecretValues vars{{"API_KEY", "k"}, {"TOKEN", "t"}};
  EXPECT_EQ(directory::secretsJson(vars),
            json::parse(R"({"vars": {"API_KEY": "k", "TOKEN": "t"}})"));
  EXPECT_EQ(directory::parseSecrets(directory::secretsJson(vars)), vars);
  EXPECT_TRUE(directory::parseSecrets(directory::secretsJson({})).empty());
  EXPECT_EQ(refusal([] { directory::parseSecrets(json::parse(R"({"vars": {"A": 1}})")); }),
            "500 service projects.directory.v1 (secrets) answered without \"vars.A\" (a string)");

  EXPECT_EQ(directory::allowedJson(true), json::parse(R"({"allowed": true})"));
  EXPECT_FALSE(directory::parseAllowed(directory::allowedJson(false)));
  EXPECT_EQ(directory::parseIds(directory::idsJson({"a", "b"})),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(refusal([] { directory::parseIds(json::parse(R"({"ids": [1]})")); }),
            "500 service projects.directory.v1 (account_projects) answered without \"ids\" (an "
            "array of strings)");
}

TEST(ProjectsDirectoryContract, TheAccessRuleIsMembershipAndOwnerOrAdminToManage) {
  auto account = [](std::string id, berth::Role role) {
    berth::Account a;
    a.id = std::move(id);
    a.role = role;
    return a;
  };
  const std::vector<berth::Account> memberships = {account("me", berth::Role::Owner),
                                                   account("team-a", berth::Role::Admin),
                                                   account("team-m", berth::Role::Member)};
  using directory::Reach;
  EXPECT_TRUE(directory::reaches(memberships, "me", Reach::Manage));
  EXPECT_TRUE(directory::reaches(memberships, "team-a", Reach::Manage));
  EXPECT_TRUE(directory::reaches(memberships, "team-m", Reach::See));
  EXPECT_FALSE(directory::reaches(memberships, "team-m", Reach::Manage));
  EXPECT_FALSE(directory::reaches(memberships, "stranger", Reach::See));
  EXPECT_FALSE(directory::reaches({}, "", Reach::See));
}

// A fake projects plugin answering through the contract's writers, as the real one does.
class DirectoryClient : public ::testing::Test {
 protected:
  void SetUp() override {
    host.fakeService(std::string(directory::kService),
                     [this](std::string_view method, const json& request) -> json {
                       ++calls;
                       asked.push_back(std::string(method) + " " + request.dump());
                       if (method == directory::kByHost) {
                         std::string h = directory::parseByHostRequest(request);
                         if (h != "shop.apps.test") throw directory::notAt(h);
                         return directory::toJson(project);
                       }
                       if (method == directory::kFind) {
                         directory::FindRequest find = directory::parseFindRequest(request);
                         if (find.name != "shop" || find.account_id != "acc1")
                           throw directory::notFound(find.name);
                         return directory::toJson(project);
                       }
                       if (method == directory::kGet) {
                         directory::ProjectKey key = directory::parseProjectKey(request);
                         if (key.id != project.id) throw directory::notFound(key.shown());
                         return directory::toJson(project);
                       }
                       if (method == directory::kSecrets)
                         return directory::secretsJson(
                             {{"SCOPE", directory::parseSecretsRequest(request).scope}});
                       if (method == directory::kCanManage) return directory::allowedJson(true);
                       if (method == directory::kDatabase)
                         return directory::toJson(directory::Database{"postgresql://x", "d", "r"});
                       return directory::idsJson({project.id});
                     });
  }

  berth::testing::FakeHost host;
  berth::Services services = host.services();
  berth::ProjectsDirectory dir{services};
  directory::Project project = sampleProject();
  int calls = 0;
  std::vector<std::string> asked;
};

TEST_F(DirectoryClient, EachMethodAsksOnceAndParses) {
  EXPECT_EQ(dir.find("acc1", "shop"), project);
  EXPECT_EQ(dir.getById("0b7e"), project);
  EXPECT_EQ(dir.byHost("shop.apps.test"), project);
  EXPECT_EQ(dir.database("0b7e").url, "postgresql://x");
  EXPECT_EQ(dir.secrets("0b7e", directory::kBuildScope).at("SCOPE"), "build");
  EXPECT_TRUE(dir.canManage("acc1", "0b7e"));
  EXPECT_EQ(dir.accountProjects("acc1"), std::vector<std::string>{"0b7e"});
  EXPECT_EQ(calls, 7);
  // The requests as the wire has always had them.
  EXPECT_EQ(asked[0], R"(find {"account_id":"acc1","name":"shop"})");
  EXPECT_EQ(asked[1], R"(get {"id":"0b7e"})");
  EXPECT_EQ(asked[2], R"(by_host {"host":"shop.apps.test"})");
  EXPECT_EQ(asked[4], R"(secrets {"id":"0b7e","scope":"build"})");
  EXPECT_EQ(asked[5], R"(can_manage {"account_id":"acc1","id":"0b7e"})");
}

TEST_F(DirectoryClient, The404PassesThroughWithTheDirectorysText) {
  EXPECT_EQ(refusal([&] { dir.find("acc2", "shop"); }), "404 no project called shop");
  EXPECT_EQ(refusal([&] { dir.byHost("elsewhere.test"); }), "404 no project at elsewhere.test");
  EXPECT_EQ(dir.tryGetById("gone"), std::nullopt);
  EXPECT_EQ(dir.tryGetById("0b7e"), project);
}

TEST(DirectoryClientWithoutProjects, IsA500NamingTheService) {
  berth::testing::FakeHost host;
  berth::Services services = host.services();
  EXPECT_EQ(refusal([&] { berth::ProjectsDirectory(services).find("a", "b"); }),
            "500 service projects.directory.v1 is not available");
}

TEST_F(DirectoryClient, TheRuleReadsTheCoresMemberships) {
  berth::Account team;
  team.id = "team-1";
  team.isTeam = true;
  team.role = berth::Role::Member;
  host.addMembership("user-1", team);
  using directory::Reach;
  EXPECT_TRUE(directory::reaches(services, "user-1", "team-1", Reach::See));
  EXPECT_FALSE(directory::reaches(services, "user-1", "team-1", Reach::Manage));
  EXPECT_FALSE(directory::reaches(services, "user-2", "team-1", Reach::See));
}

// ---- the project host cache -------------------------------------------------------------------

TEST_F(DirectoryClient, TheHostCacheKeepsAnAnswerForItsLifetimeOnly) {
  auto now = std::chrono::steady_clock::time_point{};
  berth::ProjectHostCache cache([&] { return now; });
  EXPECT_EQ(cache.byHost(dir, "shop.apps.test"), project);
  EXPECT_EQ(cache.byHost(dir, "shop.apps.test"), project);
  EXPECT_EQ(calls, 1) << "the second came from memory";
  now += berth::ProjectHostCache::kLifetime - std::chrono::milliseconds(1);
  EXPECT_EQ(cache.kept("shop.apps.test"), project);
  now += std::chrono::milliseconds(1);
  EXPECT_EQ(cache.kept("shop.apps.test"), std::nullopt) << "expired after kLifetime";
  EXPECT_EQ(cache.lastKnown(project.id)->name, "shop") << "the name stays known for log lines";
  cache.byHost(dir, "shop.apps.test");
  EXPECT_EQ(calls, 2) << "asked again";

  EXPECT_EQ(refusal([&] { cache.byHost(dir, "elsewhere.test"); }),
            "404 no project at elsewhere.test");
  EXPECT_EQ(cache.kept("elsewhere.test"), std::nullopt) << "a 404 is not kept";
}

TEST(ProjectHostCache, EachForgetDropsWhatItNames) {
  berth::ProjectHostCache cache;
  directory::Project shop = sampleProject(), blog = sampleProject();
  blog.id = "b10g";
  blog.name = "blog";
  cache.keep("shop.apps.test", shop, cache.generation());
  cache.keep("www.shop.example", shop, cache.generation());
  cache.keep("blog.apps.test", blog, cache.generation());

  cache.forgetHost("www.shop.example");  // project.domains_changed
  EXPECT_EQ(cache.kept("www.shop.example"), std::nullopt);
  EXPECT_EQ(cache.kept("shop.apps.test"), shop);

  cache.keep("www.shop.example", shop, cache.generation());
  cache.forgetProject(shop.id);  // project.deleting / deleted / updated
  EXPECT_EQ(cache.kept("shop.apps.test"), std::nullopt);
  EXPECT_EQ(cache.kept("www.shop.example"), std::nullopt);
  EXPECT_EQ(cache.kept("blog.apps.test"), blog);

  cache.forgetAll();
  EXPECT_EQ(cache.size(), 0u);
}

TEST(ProjectHostCache, AReadThatBeganBeforeAForgetKeepsNothing) {
  berth::ProjectHostCache cache;
  const uint64_t began = cache.generation();
  cache.forgetProject("anything");  // a change while the directory was being asked
  EXPECT_FALSE(cache.keep("shop.apps.test", sampleProject(), began));
  EXPECT_EQ(cache.kept("shop.apps.test"), std::nullopt);
  EXPECT_TRUE(cache.keep("shop.apps.test", sampleProject(), cache.generation()));
}

TEST(ProjectHostCache, AFullCacheStartsOver) {
  berth::ProjectHostCache cache([] { return std::chrono::steady_clock::now(); }, 3);
  for (const char* host : {"a.test", "b.test", "c.test"})
    cache.keep(host, sampleProject(), cache.generation());
  EXPECT_EQ(cache.size(), 3u);
  cache.keep("c.test", sampleProject(), cache.generation());  // a host it has: replaced
  EXPECT_EQ(cache.size(), 3u);
  cache.keep("d.test", sampleProject(), cache.generation());
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_TRUE(cache.kept("d.test"));
}

// ---- storage.blobs.v1 ----------------------------------------------------------------------

blobs::Blob sampleBlob() {
  return {"p1",   "releases",    "r/1.tgz",  1234,      "application/gzip",
          "ab12", "\"65f-4d2\"", 1700000000, 1700000100};
}

TEST(StorageBlobsContract, AnswersRoundTripWithTheWireNames) {
  const blobs::Blob b = sampleBlob();
  EXPECT_EQ(keysOf(blobs::toJson(b)),
            (std::set<std::string>{"project_id", "space", "key", "size", "content_type", "sha256",
                                   "etag", "created_at", "updated_at"}));
  EXPECT_EQ(blobs::parseBlob(blobs::toJson(b)), b);

  blobs::BlobSlice slice{b, "/data/blobs/p1/abc", 10, 20};
  json wire = blobs::toJson(slice);
  EXPECT_EQ(wire["path"], "/data/blobs/p1/abc");
  EXPECT_EQ(wire["offset"], 10);
  EXPECT_EQ(blobs::parseBlobSlice(wire), slice);
  slice.path.reset();  // a remote backend
  EXPECT_FALSE(blobs::toJson(slice).contains("path"));
  EXPECT_EQ(blobs::parseBlobSlice(blobs::toJson(slice)), slice);

  blobs::BlobBytes bytes{b, 0, 2, "aGk="};
  EXPECT_EQ(blobs::parseBlobBytes(blobs::toJson(bytes)), bytes);

  blobs::BlobList page{{b, b}, "r/1.tgz"};
  EXPECT_EQ(blobs::parseBlobList(blobs::toJson(page)), page);
  page.next.reset();
  EXPECT_TRUE(blobs::toJson(page)["next"].is_null());
  EXPECT_EQ(blobs::parseBlobList(blobs::toJson(page)), page);

  EXPECT_TRUE(blobs::parseDeleted(blobs::deletedJson(true)));
  EXPECT_EQ(blobs::parseDeletedCount(blobs::deletedCountJson(7)), 7);

  json broken = blobs::toJson(sampleBlob());
  broken.erase("etag");
  EXPECT_EQ(refusal([&] { blobs::parseBlob(broken, blobs::kPut); }),
            "500 service storage.blobs.v1 (put) answered without \"etag\" (a string)");
  json list = blobs::toJson(blobs::BlobList{{sampleBlob()}, std::nullopt});
  list["blobs"][0].erase("size");
  EXPECT_EQ(refusal([&] { blobs::parseBlobList(list); }),
            "500 service storage.blobs.v1 (list) answered without \"blobs.0.size\" (an integer)");
}

TEST(StorageBlobsContract, RequestsRoundTrip) {
  blobs::PutRequest put{{"p1", "releases", "r1"}, "/spool/0001", "application/gzip", true};
  json wire = blobs::toJson(put);
  EXPECT_EQ(wire, json::parse(R"({"project_id": "p1", "space": "releases", "key": "r1",
    "from_file": "/spool/0001", "content_type": "application/gzip", "move": true})"));
  blobs::PutRequest read = blobs::parsePutRequest(wire);
  EXPECT_EQ(read.blob, put.blob);
  EXPECT_EQ(read.from_file, put.from_file);
  EXPECT_EQ(read.content_type, put.content_type);
  EXPECT_TRUE(read.move);

  blobs::RangeRequest range = blobs::parseRangeRequest(
      blobs::toJson(blobs::RangeRequest{{"p1", "s", "k"}, 5, std::nullopt}), false);
  EXPECT_EQ(range.offset, 5);
  EXPECT_EQ(range.length, std::nullopt);
  EXPECT_EQ(
      blobs::parseRangeRequest(json::parse(R"({"project_id":"p1","space":"s","key":"k"})"), true)
          .length,
      blobs::kMaxReadBytes)
      << "read: at most 4 MB when no length is asked";

  blobs::ListRequest list =
      blobs::parseListRequest(blobs::toJson(blobs::ListRequest{"p1", "s", "a/", "a/b", 10}));
  EXPECT_EQ(list.prefix, "a/");
  EXPECT_EQ(list.after, "a/b");
  EXPECT_EQ(list.limit, 10);
  EXPECT_EQ(blobs::parsePrefixRequest(blobs::toJson(blobs::PrefixRequest{"p1", "s", ""})).prefix,
            "");
}

TEST(StorageBlobsContract, ARefusedRequestSaysWhyInTheStoresWords) {
  auto put = [](json request) { return refusal([&] { blobs::parsePutRequest(request); }); };
  const json ok = json::parse(R"({"project_id":"p1","space":"s","key":"k","from_file":"/f"})");
  auto with = [&](const char* field, json value) {
    json r = ok;
    if (value.is_null())
      r.erase(field);
    else
      r[field] = value;
    return r;
  };
  EXPECT_EQ(put(with("project_id", nullptr)), "400 project_id is required and must be a string");
  EXPECT_EQ(put(with("project_id", "../x")),
            "400 project_id may contain only letters, digits, '-' and '_'");
  EXPECT_EQ(put(with("project_id", std::string(65, 'a'))),
            "400 project_id must be 1 to 64 characters");
  EXPECT_EQ(put(with("space", "Files")),
            "400 space must be 1 to 32 of [a-z0-9_-], starting with a letter");
  EXPECT_EQ(put(with("key", "")), "400 key cannot be empty");
  EXPECT_EQ(put(with("key", std::string(1025, 'k'))), "400 key can be at most 1024 bytes");
  EXPECT_EQ(put(with("key", std::string("a\0b", 3))), "400 key cannot contain a NUL byte");
  EXPECT_EQ(put(with("key", "\xC3\x28")), "400 key must be UTF-8 text");
  EXPECT_EQ(put(with("from_file", nullptr)), "400 from_file is required and must be a string");
  EXPECT_EQ(put(with("from_file", "relative")), "400 from_file must be an absolute path");
  EXPECT_EQ(put(with("content_type", 7)), "400 content_type must be a string");
  EXPECT_EQ(put(with("move", "yes")), "400 move must be a boolean");
  // The address is checked before anything else, project_id's rule before the key's presence.
  EXPECT_EQ(put(json::parse(R"({"project_id":"../x","space":"s"})")),
            "400 project_id may contain only letters, digits, '-' and '_'");

  EXPECT_EQ(refusal([] {
              blobs::parseRangeRequest(
                  json::parse(R"({"project_id":"p1","space":"s","key":"k","offset":"1"})"), false);
            }),
            "400 offset must be a non-negative integer");
  EXPECT_EQ(refusal([] { blobs::parseRangeRequest(json::parse(R"({"length": 4194305})"), true); }),
            "400 read returns at most 4194304 bytes at a time")
      << "the range is checked before the address";
  EXPECT_EQ(refusal([] {
              blobs::parseListRequest(json::parse(R"({"project_id":"p1","space":"s","limit":0})"));
            }),
            "400 limit must be between 1 and 10000");
  EXPECT_EQ(refusal([] {
              blobs::parseListRequest(json::parse(R"({"project_id":"p1","space":"s","limit":-3})"));
            }),
            "400 limit must be a non-negative integer");
  EXPECT_EQ(
      refusal([] { blobs::parsePrefixRequest(json::parse(R"({"project_id":"p1","space":"s"})")); }),
      "400 prefix is required and must be a string");
}

TEST(StorageBlobsClient, PutsAndReadsThroughTheService) {
  berth::testing::FakeHost host;
  std::vector<std::string> asked;
  host.fakeService(std::string(blobs::kService), [&](std::string_view method, const json& request) {
    asked.push_back(std::string(method));
    if (method == blobs::kPut) {
      blobs::PutRequest put = blobs::parsePutRequest(request);
      blobs::Blob b = sampleBlob();
      b.key = put.blob.key;
      return blobs::toJson(b);
    }
    if (method == blobs::kGet)
      return blobs::toJson(blobs::BlobSlice{sampleBlob(), "/blobs/x", 0, 1234});
    if (method == blobs::kDelete) return blobs::deletedJson(false);
    if (method == blobs::kDeletePrefix) return blobs::deletedCountJson(3);
    throw Error::notFound("no blob called k in s");
  });
  berth::Services services = host.services();
  berth::StorageBlobs store(services);
  EXPECT_EQ(store.put({{"p1", "releases", "r9"}, "/spool/1", "", true}).key, "r9");
  EXPECT_EQ(store.get({"p1", "releases", "r/1.tgz"}).path, "/blobs/x");
  EXPECT_FALSE(store.remove({"p1", "releases", "r9"}));
  EXPECT_EQ(store.removePrefix({"p1", "releases", ""}), 3);
  EXPECT_EQ(refusal([&] { store.stat({"p1", "s", "k"}); }), "404 no blob called k in s");
  EXPECT_EQ(asked, (std::vector<std::string>{"put", "get", "delete", "delete_prefix", "stat"}));
}

// ---- storage.stats.v1, runtime.status.v1, accounts.usage.v1 ----------------------------------

TEST(StorageStatsContract, RoundTripsAndRefusals) {
  namespace stats = berth::storage_stats;
  stats::ProjectFiles files{{"p1", {3, 1200}}, {"p2", {0, 0}}};
  json wire = stats::toJson(files);
  EXPECT_EQ(wire, json::parse(R"({"p1": {"files_count": 3, "files_bytes": 1200},
                                  "p2": {"files_count": 0, "files_bytes": 0}})"));
  EXPECT_EQ(stats::parseProjectFiles(wire), files);
  wire["p1"].erase("files_bytes");
  EXPECT_EQ(refusal([&] { stats::parseProjectFiles(wire); }),
            "500 service storage.stats.v1 (projects) answered without \"p1.files_bytes\" (an "
            "integer of 0 or more)");
  EXPECT_EQ(stats::parseIdsRequest(stats::idsJson({"a", "b"})),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(refusal([] { stats::parseIdsRequest(json::parse(R"({"ids": "nope"})")); }),
            "400 ids is required and must be an array of strings");

  berth::testing::FakeHost host;
  berth::Services services = host.services();
  EXPECT_EQ(berth::StorageStats(services).tryProjects({"p1"}), std::nullopt)
      << "no storage plugin: nothing, not an error";
  host.fakeService(std::string(stats::kService),
                   [&](std::string_view, const json&) { return stats::toJson(files); });
  EXPECT_EQ(berth::StorageStats(services).tryProjects({"p1", "p2"}), files);
}

TEST(RuntimeStatusContract, RoundTripsAndRefusals) {
  namespace status = berth::runtime_status;
  status::Status running{true, status::LiveRelease{"rel1", 1700000000, 3, 1234}};
  EXPECT_EQ(status::toJson(running), json::parse(R"({"state": "running", "live": {"id": "rel1",
              "created_at": 1700000000, "files": 3, "bytes": 1234}})"));
  EXPECT_EQ(status::toJson(status::Status{}), json::parse(R"({"state": "stopped", "live": null})"));
  EXPECT_EQ(status::parseStatus(status::toJson(running)), running);
  status::ProjectStatuses all{{"p1", running}, {"p2", {}}};
  EXPECT_EQ(status::parseStatuses(status::toJson(all)), all);

  json wire = status::toJson(all);
  wire["p2"]["state"] = "asleep";
  EXPECT_EQ(refusal([&] { status::parseStatuses(wire); }),
            "500 service runtime.status.v1 (projects) answered without \"p2.state\" (running or "
            "stopped)");
  wire = status::toJson(running);
  wire.erase("live");
  EXPECT_EQ(refusal([&] { status::parseStatus(wire); }),
            "500 service runtime.status.v1 (project) answered without \"live\" (an object or "
            "null)");
  EXPECT_EQ(refusal([] { status::parseIdRequest(json::parse(R"({"id": 3})")); }),
            "400 id must be a project id");
  EXPECT_EQ(refusal([] { status::parseIdsRequest(json::object()); }),
            "400 ids must be an array of project ids");
}

TEST(AccountsUsageContract, RoundTrips) {
  namespace usage = berth::accounts_usage;
  EXPECT_EQ(usage::toJson(usage::Usage{4}), json::parse(R"({"projects_used": 4})"));
  EXPECT_EQ(usage::parseUsage(usage::toJson(usage::Usage{4})).projects_used, 4);
  EXPECT_EQ(usage::parseAccountRequest(usage::accountJson("acc1")), "acc1");
  EXPECT_EQ(refusal([] { usage::parseUsage(json::object()); }),
            "500 service accounts.usage.v1 (get) answered without \"projects_used\" (an integer "
            "of 0 or more)");
  berth::testing::FakeHost host;
  host.fakeService(std::string(usage::kService),
                   [](std::string_view, const json&) { return usage::toJson(usage::Usage{2}); });
  berth::Services services = host.services();
  EXPECT_EQ(berth::AccountsUsage(services).tryGet("acc1")->projects_used, 2);
}

TEST(RuntimeLogsContract, APlatformLineRoundTripsAndIsChecked) {
  namespace logs = berth::runtime_logs;
  logs::PlatformLine line = logs::parsePlatformLine(logs::toJson({"p-1", "installing n8n"}));
  EXPECT_EQ(line.project_id, "p-1");
  EXPECT_EQ(line.message, "installing n8n");
  auto refusal = [](const json& request) {
    try {
      logs::parsePlatformLine(request);
    } catch (const Error& e) {
      return std::to_string(e.status()) + " " + e.message();
    }
    return std::string("taken");
  };
  EXPECT_EQ(refusal({{"message", "x"}}), "400 project_id is required and must be a string");
  EXPECT_EQ(refusal({{"project_id", "p-1"}, {"message", 7}}),
            "400 message is required and must be a string");
  EXPECT_EQ(refusal({{"project_id", "p-1"}, {"message", ""}}),
            "400 a log message is 1 to 1000 characters");
  EXPECT_EQ(refusal({{"project_id", "p-1"}, {"message", std::string(1001, 'x')}}),
            "400 a log message is 1 to 1000 characters");
}

}  // namespace
