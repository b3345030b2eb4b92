// The catalogue and how installers join it: eleven entries with real names, an entry with a
// ready installer is installable, one whose installer lacks a service says which, and a third
// party's installer outside the catalogue is listed after it.
#include <gtest/gtest.h>

#include <set>

#include "catalogue.hpp"

using namespace berth::templates;

TEST(Catalogue, ElevenEntriesOfWhichTheStarterAppsAreNamed) {
  const auto& entries = catalogue();
  ASSERT_EQ(entries.size(), 11u);
  std::set<std::string> slugs;
  for (const auto& e : entries) {
    EXPECT_FALSE(e.name.empty());
    EXPECT_FALSE(e.description.empty());
    slugs.insert(e.slug);
  }
  EXPECT_EQ(slugs.size(), 11u);
  EXPECT_TRUE(slugs.count("wordpress"));
  EXPECT_TRUE(slugs.count("n8n"));
}

TEST(Catalogue, InstallersMakeEntriesInstallable) {
  std::vector<berth::InstallerListing> installers = {
      {"n8n", "n8n", "workflows", "2.41.1-1", "n8n", "", {}},
      {"wordpress", "WordPress", "cms", "6.8-1", "wordpress", "runtime.php.v1", {}},
      {"pastebin", "Pastebin", "a third party's", "0.3.0", "acme_paste", "", {}}};
  auto listed = listTemplates(catalogue(), installers);
  ASSERT_EQ(listed.size(), 12u);
  auto n8n = findTemplate(listed, "n8n");
  ASSERT_TRUE(n8n);
  EXPECT_TRUE(n8n->installable);
  EXPECT_EQ(n8n->version, "2.41.1-1");
  auto wp = findTemplate(listed, "wordpress");
  EXPECT_FALSE(wp->installable);
  EXPECT_EQ(wp->unavailable, "needs the service runtime.php.v1, which no loaded plugin offers");
  auto ghost = findTemplate(listed, "ghost");
  EXPECT_FALSE(ghost->installable);
  EXPECT_TRUE(ghost->owner.empty());
  EXPECT_EQ(listed.back().slug, "pastebin");
  EXPECT_TRUE(listed.back().installable);
  EXPECT_FALSE(findTemplate(listed, "nothing"));
}
