// One berthd with the feature plugins and one starter app's installer, and the account that
// installs, shared by every test of an end-to-end suite (an install takes seconds to minutes).
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "projects/api_support.hpp"
#include "support/berthd_suite.hpp"

namespace berth::testing {

class StarterAppSuite : public BerthdSuite {
 protected:
  // For the suite's SetUpTestSuite: `extra_yaml` is added after the secrets key.
  static void startServer(const std::string& app_installer, const std::string& account_slug,
                          const std::string& extra_yaml) {
    BerthdOptions options;
    options.plugins = {"projects", "storage", "runtime", "scheduler", "templates", app_installer};
    options.extra_yaml = projects_api::secretsKeyYaml() + extra_yaml;
    installer = app_installer;
    BerthdSuite::startServer(options);
    owner =
        std::make_unique<projects_api::Account>(projects_api::makeAccount(*server, account_slug));
  }
  static void TearDownTestSuite() {
    stopServer();
    owner.reset();
  }
  static ApiClient api() { return server->api(owner->token); }
  static std::string installPath(const std::string& project) {
    return "/projects/" + project + "/app-templates/" + installer + "/install";
  }

  static inline std::unique_ptr<projects_api::Account> owner;
  static inline std::string installer;
};

}  // namespace berth::testing
