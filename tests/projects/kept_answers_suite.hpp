// A berthd and one account shared by a suite that tests answers a plugin keeps in memory
// (<berth/util/kept_answers.hpp>): it starts only once the plugin listens on its channel, since
// until then nothing is kept and such tests would pass without testing anything.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "api_support.hpp"
#include "support/listener_probe.hpp"

namespace berth::testing::projects_api {

class KeptAnswersSuite : public OwnerSuite {
 protected:
  static void startSuite(std::vector<std::string> plugins, const std::string& slug,
                         const std::string& channel) {
    BerthdOptions options;
    options.plugins = std::move(plugins);
    options.extra_yaml = "projects:\n  creation_burst: 100\n";
    startServer(options, slug);
    db = new core::Pool(server->databaseUrl(), 2, std::chrono::seconds(10));
    if (!ListenerProbe(*db, channel).waitListening())
      throw std::runtime_error("berthd never listened on " + channel);
  }
  static void TearDownTestSuite() {
    OwnerSuite::TearDownTestSuite();
    delete db;
  }

  // The first value of a statement on the control database ("" for none).
  static std::string sql(const std::string& statement,
                         const std::vector<core::Param>& params = {}) {
    auto v = column(*db, statement, params);
    return v.empty() ? "" : v[0];
  }

  static inline core::Pool* db = nullptr;
};

}  // namespace berth::testing::projects_api
