// SPDX-License-Identifier: MIT
// The installer contract through the SDK's fake host, the way a third party unit-tests an
// installer: the body's fields checked before install() runs, the context's project and
// caller forced into every service request, undeclared services refused, the payload folder,
// and the listing with what an installer lacks.
#include <gtest/gtest.h>
#include <berth/testing/fake_host.hpp>

#include <string>
#include <vector>

namespace {

using berth::testing::FakeHost;
using nlohmann::json;

class BlogInstaller final : public berth::Installer {
 public:
  berth::InstallerInfo info() const override {
    return {"blog",
            "Blog",
            "A small blog.",
            "1.0.0",
            {"sites.v1"},
            {{"title", berth::FieldType::String, true}, {"pages", berth::FieldType::Int, false}}};
  }
  json install(berth::InstallContext& context, const json& body) override {
    // Names another project: the core puts the context's own back.
    json site = context.call("sites.v1", "create",
                             {{"title", body["title"]}, {"project_id", "someone-elses"}});
    context.log(berth::LogLevel::Info, "blog installed");
    return {{"project", context.projectName()},
            {"site", site},
            {"caller", context.caller()},
            {"payload", context.payloadDir().string()}};
  }
};

// Declares one service and calls another.
class NosyInstaller final : public berth::Installer {
 public:
  berth::InstallerInfo info() const override {
    return {"nosy", "Nosy", "Reaches further than it said.", "0.1.0", {"sites.v1"}, {}};
  }
  json install(berth::InstallContext& context, const json&) override {
    return context.call("billing.v1", "charge", {{"amount", 100}});
  }
};

class InstallersPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.installer(std::make_shared<BlogInstaller>());
    r.installer(std::make_shared<NosyInstaller>());
  }
};

class InstallerContract : public ::testing::Test {
 protected:
  void SetUp() override {
    host.setPluginId("starters");
    host.setShareDir("/opt/berth/share/berth");
    host.load<InstallersPlugin>();
    host.start();
  }
  void offerSites() {
    host.fakeService("sites.v1", [](std::string_view method, const json& request) {
      if (method != "create") throw berth::Error::notFound("no method");
      return json{{"made", request}};
    });
  }
  const json project = {{"id", "p-1"}, {"name", "blog-ann1"}, {"account_id", "acc-ann"}};
  FakeHost host;
};

TEST_F(InstallerContract, TheContextIsTheInstallersProjectAndCaller) {
  offerSites();
  json answer = host.install("blog", {{"title", "Notes"}}, project, "acc-bob");
  EXPECT_EQ(answer["project"], "blog-ann1");
  EXPECT_EQ(answer["caller"], "acc-bob");
  EXPECT_EQ(answer["site"]["made"]["project_id"], "p-1");
  EXPECT_EQ(answer["site"]["made"]["account_id"], "acc-bob");
  EXPECT_EQ(answer["site"]["made"]["title"], "Notes");
  EXPECT_EQ(answer["payload"], "/opt/berth/share/berth/templates/starters");
  EXPECT_TRUE(host.logged("blog installed"));
}

TEST_F(InstallerContract, TheBodyIsCheckedBeforeInstallRuns) {
  offerSites();
  try {
    host.install("blog", json::object(), project);
    FAIL() << "a body without its title was installed";
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 422);
    EXPECT_EQ(e.message(), "missing field: title");
  }
  try {
    host.install("blog", {{"title", "x"}, {"pages", "many"}}, project);
    FAIL();
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 422);
    EXPECT_EQ(e.message(), "field pages must be an integer");
  }
}

TEST_F(InstallerContract, AnUndeclaredServiceIsRefused) {
  offerSites();
  host.fakeService("billing.v1", [](std::string_view, const json&) { return json{{"ok", true}}; });
  try {
    host.install("nosy", json::object(), project);
    FAIL() << "the installer reached a service it did not declare";
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 403);
    EXPECT_EQ(e.message(), "the installer nosy did not declare the service billing.v1");
  }
}

TEST_F(InstallerContract, AnUnknownSlugIsNotFound) {
  try {
    host.install("shop", json::object(), project);
    FAIL();
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 404);
    EXPECT_EQ(e.message(), "no app template named shop");
  }
}

TEST_F(InstallerContract, TheListingSaysWhatAnInstallerLacks) {
  std::vector<berth::InstallerListing> listed = host.services().installers();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].slug, "blog");
  EXPECT_EQ(listed[0].version, "1.0.0");
  EXPECT_EQ(listed[0].owner, "starters");
  EXPECT_EQ(listed[0].missing_service, "sites.v1");
  try {
    host.install("blog", {{"title", "x"}}, project);
    FAIL() << "an installer ran without the service it needs";
  } catch (const berth::Error& e) {
    EXPECT_EQ(e.status(), 503);
  }
  offerSites();
  EXPECT_EQ(host.services().installers()[0].missing_service, "");
}

}  // namespace
