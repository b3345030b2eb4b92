// Where a request for a process app is served when several nodes share the control plane.
#include "app_owner_rules.hpp"

#include <gtest/gtest.h>

#include <string>

using berth::runtime::OwnerAction;
using berth::runtime::ownerAction;

TEST(OwnerAction, ThisNodesClaimIsServedHere) {
  EXPECT_EQ(ownerAction("", false), OwnerAction::ServeHere);
  EXPECT_EQ(ownerAction("", true), OwnerAction::ServeHere);
}

TEST(OwnerAction, AnotherOwnerGetsTheRequestUnlessItWasForwardedAlready) {
  EXPECT_EQ(ownerAction("node-a", false), OwnerAction::ProxyToOwner);
  // The loop guard: a forwarded request is never forwarded again.
  EXPECT_EQ(ownerAction("node-a", true), OwnerAction::ServeHereAnyway);
}

TEST(OwnerAction, TheClaimOutlivesARenewalPeriodSeveralTimes) {
  using namespace std::chrono;
  // Renewed every second: a live owner is never taken over; a dead one within kClaimLasts.
  EXPECT_GE(berth::runtime::kClaimLasts, seconds(3));
  EXPECT_GT(berth::runtime::kDropUnrenewedAfter, seconds(1));
  EXPECT_LT(berth::runtime::kDropUnrenewedAfter, berth::runtime::kClaimLasts);
  const std::string statement = berth::runtime::kClaimStatement;
  EXPECT_NE(statement.find("ON CONFLICT (project_id) DO UPDATE"), std::string::npos);
  EXPECT_NE(statement.find("WHERE o.node_id = EXCLUDED.node_id"), std::string::npos);
}
