// Where a request for a project's process app is served when several nodes share the control
// plane (plugins/runtime/plugin/app_owners.hpp holds the claims): pure, so it is unit-tested.
#pragma once
#include <chrono>
#include <string>

namespace berth::runtime {

// A claim not renewed for this long is taken by the next node that asks. The owner renews
// every second (the idle_stop job), so a dead owner's requests fail (502/503) for at most
// about kClaimLasts + 1 s before another node starts the app.
inline constexpr std::chrono::seconds kClaimLasts{5};
// A node drops its own claims it has not renewed for this long (its app stopped or crashed):
// longer than a renewal period, so a claim made just before an app's start is never dropped.
inline constexpr std::chrono::seconds kDropUnrenewedAfter{2};

// The claim, one statement: $1 project id, $2 this node's id, $3 kClaimLasts in seconds. It
// answers a row (node_id = $2) when this node holds the claim afterwards, none when another
// node's fresh claim stands. Two nodes claiming at once leave one owner: the second waits for
// the first's row lock, then sees its fresh claim and changes nothing.
inline constexpr const char* kClaimStatement =
    "INSERT INTO runtime.app_owners AS o (project_id, node_id, claimed_at, renewed_at) "
    "VALUES ($1, $2, now(), now()) "
    "ON CONFLICT (project_id) DO UPDATE SET node_id = EXCLUDED.node_id, "
    "claimed_at = CASE WHEN o.node_id = EXCLUDED.node_id THEN o.claimed_at ELSE now() END, "
    "renewed_at = now() "
    "WHERE o.node_id = EXCLUDED.node_id "
    "OR o.renewed_at < now() - make_interval(secs => $3::double precision) "
    "RETURNING node_id";

enum class OwnerAction {
  ServeHere,        // this node owns the app (or just claimed it): start or reach it here
  ProxyToOwner,     // another live node owns it: its edge gets the request
  ServeHereAnyway,  // another node owns it but forwarded the request here: never forward again
};

// `owner` is the claim statement's answer: "" when this node holds the claim, else the
// owner's node id. `forwarded`: the request carries a valid X-Berth-Forwarded (berth/cluster.hpp).
inline OwnerAction ownerAction(const std::string& owner, bool forwarded) {
  if (owner.empty()) return OwnerAction::ServeHere;
  return forwarded ? OwnerAction::ServeHereAnyway : OwnerAction::ProxyToOwner;
}

}  // namespace berth::runtime
