// A berthd and one account shared by a suite that tests answers a plugin keeps in memory
// (<berth/kept_answers.hpp>): it starts only once the plugin listens on its channel, since until
// then nothing is kept and such tests would pass without testing anything.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "api_support.hpp"
#include "support/berthd_suite.hpp"
#include "support/listener_probe.hpp"

namespace berth::testing::projects_api {

class KeptAnswersSuite : public BerthdSuite {
 protected:
  static void startSuite(std::vector<std::string> plugins, const std::string& slug,
                         const std::string& channel) {
    BerthdOptions options;
    options.plugins = std::move(plugins);
    options.extra_yaml = "projects:\n  creation_burst: 100\n";
    startServer(options);
    owner = std::make_unique<Account>(makeAccount(*server, slug));
    db = new core::Pool(server->databaseUrl(), 2, std::chrono::seconds(10));
    if (!ListenerProbe(*db, channel).waitListening())
      throw std::runtime_error("berthd never listened on " + channel);
  }
  static void TearDownTestSuite() {
    stopServer();
    delete db;
    owner.reset();
  }

  static ApiClient api() { return server->api(owner->token); }
  // A new project of the suite's account; its name.
  static std::string project(const std::string& label) {
    mustCreate(api(), label);
    return projectName(label, owner->slug);
  }
  // The first value of a statement on the control database ("" for none).
  static std::string sql(const std::string& statement,
                         const std::vector<core::Param>& params = {}) {
    auto v = column(*db, statement, params);
    return v.empty() ? "" : v[0];
  }

  static inline std::unique_ptr<Account> owner;
  static inline core::Pool* db = nullptr;
};

}  // namespace berth::testing::projects_api
