// A suite on two berthds of one cluster (tests/support/cluster.hpp, without its balancer): node A,
// where the suite's account makes its projects, and node B, which shares A's control plane and S3
// store. A suite derives from TwoNodes<itself> (each suite its own cluster) and starts the nodes
// in its SetUpTestSuite with startNodes.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "../projects/api_support.hpp"
#include "support/cluster.hpp"

namespace berth::testing::runtime_api {

template <class Suite>
class TwoNodes : public ::testing::Test {
 protected:
  // `options` says what else the nodes need (runtime settings, labels); the node count and the
  // balancer are this fixture's.
  static void startNodes(ClusterOptions options, const std::string& account_slug) {
    options.nodes = 2;
    options.balancer = false;
    cluster = std::make_unique<Cluster>(std::move(options));
    owner =
        std::make_unique<projects_api::Account>(projects_api::makeAccount(nodeA(), account_slug));
  }
  static void TearDownTestSuite() {
    owner.reset();
    cluster.reset();
  }

  static BerthdProcess& nodeA() { return cluster->node(0); }
  static BerthdProcess& nodeB() { return cluster->node(1); }
  static ApiClient api() { return nodeA().api(owner->token); }
  static std::string project(const std::string& label) {
    projects_api::mustCreate(api(), label);
    return projects_api::projectName(label, owner->slug);
  }
  static std::vector<std::string> sql(const std::string& statement,
                                      const std::vector<core::Param>& params = {}) {
    return cluster->sql(statement, params);
  }

  static inline std::unique_ptr<Cluster> cluster;
  static inline std::unique_ptr<projects_api::Account> owner;
};

}  // namespace berth::testing::runtime_api
