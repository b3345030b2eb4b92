// SPDX-License-Identifier: MIT
// The guestbook installer against the SDK's fake host: the core's part (the body's fields,
// the context's project, the declared services) is played by berth::testing::FakeHost, and
// the services the installer calls are small fakes that keep what they were asked.
#include <gtest/gtest.h>
#include <berth/testing/fake_host.hpp>

#include <map>
#include <string>
#include <vector>

#include "guestbook_installer.hpp"

namespace {

using berth::testing::FakeHost;
using nlohmann::json;
namespace secrets = berth::projects_secrets;
namespace releases = berth::runtime_releases;

// projects.secrets.v1 in memory, with only_if_absent as the projects plugin applies it.
struct FakeSecrets {
  std::map<std::string, secrets::SetRequest> stored;
  std::map<std::string, int64_t> updated_at;
  int64_t clock = 1000;

  json set(const json& request) {
    secrets::SetRequest r = secrets::parseSetRequest(request);
    const bool keep = r.only_if_absent && stored.count(r.name) > 0;
    if (!keep) {
      stored[r.name] = r;
      updated_at[r.name] = ++clock;
    }
    const secrets::SetRequest& now = stored[r.name];
    return secrets::toJson(secrets::Stored{{now.name, now.scope, updated_at[r.name]}, !keep});
  }
};

// runtime.releases.v1 in memory: every release built and live, or failed when told so.
struct FakeReleases {
  std::vector<releases::CreateRequest> created;
  std::string failure;  // not empty: the release fails with this error

  json call(std::string_view method, const json& request) {
    if (method == releases::kCreate) {
      created.push_back(releases::parseCreateRequest(request));
      return releases::toJson(release("r" + std::to_string(created.size()), "building"));
    }
    if (method == releases::kWait) {
      releases::Release built = release(releases::parseWaitRequest(request).release_id,
                                        failure.empty() ? "live" : "failed");
      if (!failure.empty()) built.error = failure;
      built.build_log = "";
      return releases::toJson(built);
    }
    throw berth::Error::notFound("no method " + std::string(method));
  }

  static releases::Release release(std::string id, std::string status) {
    return {.id = std::move(id),
            .project = "guests-ann1",
            .status = std::move(status),
            .cmd = "node server.js",
            .region = "local"};
  }
};

class Guestbook : public ::testing::Test {
 protected:
  void SetUp() override {
    // As berthd names the payload folder: <share>/templates/<plugin id>.
    host.setPluginId("guestbook");
    host.setShareDir("/opt/berth/share/berth");
    host.load<guestbook::GuestbookPlugin>();
    host.start();
    host.fakeService("projects.secrets.v1", [this](std::string_view, const json& request) {
      return secrets.set(request);
    });
    host.fakeService("templates.installs.v1", [this](std::string_view, const json& request) {
      logged.push_back(berth::templates_installs::parseProgress(request).message);
      return json{{"noted", true}};
    });
  }
  void offerReleases() {
    host.fakeService("runtime.releases.v1", [this](std::string_view method, const json& request) {
      return releases.call(method, request);
    });
  }
  json install(const json& body = json::object()) {
    return host.install("guestbook", body, project);
  }

  const json project = {{"id", "p-1"}, {"name", "guests-ann1"}, {"account_id", "acc-ann"}};
  FakeHost host;
  FakeSecrets secrets;
  FakeReleases releases;
  std::vector<std::string> logged;
};

TEST_F(Guestbook, InstallsTheAppWithASecretOfItsOwn) {
  offerReleases();
  json answer = install();
  EXPECT_EQ(answer["secrets"], json::array({"GUESTBOOK_SECRET"}));
  EXPECT_EQ(answer["schedules"], json::array());
  EXPECT_EQ(answer["release"], json({{"id", "r1"}, {"status", "live"}}));
  EXPECT_EQ(answer.dump().find(secrets.stored["GUESTBOOK_SECRET"].value), std::string::npos)
      << "the answer shows the secret's value";

  // The secret: 32 random bytes, for the context's project (the core sets project_id).
  ASSERT_EQ(secrets.stored.count("GUESTBOOK_SECRET"), 1u);
  const secrets::SetRequest& secret = secrets.stored["GUESTBOOK_SECRET"];
  EXPECT_EQ(secret.project_id, "p-1");
  EXPECT_EQ(secret.value.size(), 64u);
  EXPECT_EQ(secret.scope, "runtime");

  // The release: the app in the payload folder, run with node, with this install's title.
  ASSERT_EQ(releases.created.size(), 1u);
  const releases::CreateRequest& made = releases.created[0];
  EXPECT_EQ(made.project_id, "p-1");
  EXPECT_EQ(made.folder, "/opt/berth/share/berth/templates/guestbook/app");
  EXPECT_EQ(made.cmd, "node server.js");
  ASSERT_EQ(made.files.size(), 1u);
  EXPECT_EQ(made.files[0].path, "settings.json");
  EXPECT_EQ(json::parse(made.files[0].content), json({{"title", "Guestbook"}}));

  EXPECT_EQ(logged, (std::vector<std::string>{"guestbook: GUESTBOOK_SECRET is a new secret",
                                              "guestbook: making a release of "
                                              "/opt/berth/share/berth/templates/guestbook/app",
                                              "guestbook: release r1 is live"}));
}

TEST_F(Guestbook, ASecondInstallKeepsTheSecretAndMakesANewRelease) {
  offerReleases();
  install();
  const std::string first = secrets.stored["GUESTBOOK_SECRET"].value;
  json again = install();
  EXPECT_EQ(secrets.stored["GUESTBOOK_SECRET"].value, first);
  EXPECT_EQ(again["release"]["id"], "r2");
  EXPECT_EQ(releases.created.size(), 2u);
  EXPECT_EQ(logged[3], "guestbook: GUESTBOOK_SECRET is kept");
}

TEST_F(Guestbook, RotateSecretAsksForANewOne) {
  offerReleases();
  install();
  const std::string first = secrets.stored["GUESTBOOK_SECRET"].value;
  install({{"rotate_secret", true}});
  EXPECT_NE(secrets.stored["GUESTBOOK_SECRET"].value, first);
}

TEST_F(Guestbook, TheTitleGoesIntoTheRelease) {
  offerReleases();
  install({{"title", "Ann's visitors"}});
  EXPECT_EQ(json::parse(releases.created.at(0).files.at(0).content)["title"], "Ann's visitors");
}

// The core checks the fields' types (422, its words); the installer its own rule (400).
TEST_F(Guestbook, AWrongBodyIsRefusedBeforeAnythingHappens) {
  offerReleases();
  auto refusal = [&](const json& body) -> std::pair<int, std::string> {
    try {
      install(body);
    } catch (const berth::Error& e) {
      return {e.status(), e.message()};
    }
    return {200, "installed"};
  };
  EXPECT_EQ(refusal({{"rotate_secret", "yes"}}),
            std::make_pair(422, std::string("field rotate_secret must be a boolean")));
  EXPECT_EQ(refusal({{"title", 7}}),
            std::make_pair(422, std::string("field title must be a string")));
  EXPECT_EQ(refusal({{"title", ""}}),
            std::make_pair(400, std::string("a guestbook's title is 1 to 100 characters")));
  EXPECT_TRUE(secrets.stored.empty());
  EXPECT_TRUE(releases.created.empty());
  EXPECT_TRUE(logged.empty());
}

TEST_F(Guestbook, AFailedReleaseFailsTheInstallWithItsError) {
  offerReleases();
  releases.failure = "this release needs Node (it has server.js), which is not installed";
  try {
    install();
    FAIL() << "the install succeeded with a failed release";
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 500);
    EXPECT_EQ(e.message(), "the guestbook's release failed: " + releases.failure);
  }
}

TEST_F(Guestbook, WithoutReleasesItIsListedAsNotInstallable) {
  std::vector<berth::InstallerListing> listed = host.services().installers();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].slug, "guestbook");
  EXPECT_EQ(listed[0].owner, "guestbook");
  EXPECT_EQ(listed[0].missing_service, "runtime.releases.v1");
  try {
    install();
    FAIL() << "the install ran without the service it needs";
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 503);
  }
  EXPECT_TRUE(secrets.stored.empty()) << "an install that cannot finish must not start";
}

}  // namespace
