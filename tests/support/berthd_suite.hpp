// One berthd shared by every test of a suite. The suite's SetUpTestSuite starts it with its
// plugins and settings (startServer); TearDownTestSuite stops it. The process is owned, not a
// raw pointer: a suite whose set-up throws half-way, or a program that ends early, still stops
// its berthd (SIGTERM, then its folders removed) instead of leaking it.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "support/berthd_process.hpp"

namespace berth::testing {

class BerthdSuite : public ::testing::Test {
 protected:
  // For the suite's SetUpTestSuite: starts its berthd (and waits until it is ready).
  static BerthdProcess& startServer(BerthdOptions options = {}) {
    server = std::make_unique<BerthdProcess>(std::move(options));
    server->start();
    return *server;
  }

  // Stops the berthd with stopCleanly (the suite fails unless it exited well and printed no
  // sanitizer report), then frees it; nothing when none was started (a skipped suite).
  static void stopServer() {
    if (!server) return;
    stopCleanly(*server);
    server.reset();
  }

  // Stops it (SIGTERM) without judging how it exited, for the suites that never checked.
  static void dropServer() { server.reset(); }

  static void TearDownTestSuite() { stopServer(); }

  static inline std::unique_ptr<BerthdProcess> server;
};

}  // namespace berth::testing
