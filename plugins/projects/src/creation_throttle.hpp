// Project creation throttle per account, kept in PostgreSQL so it holds across berthd nodes:
// a token bucket of `burst` tokens refilled one every `refill_seconds`.
#pragma once
#include <berth/db.hpp>

#include <string>

namespace berth::projects {

struct ThrottleDecision {
  bool allowed = true;
  int retry_after_seconds = 0;  // whole seconds until a token is available, >= 1 when refused
};

// One atomic statement on projects.creation_throttle(account_id text primary key,
// tokens double precision, updated_at double precision /* epoch seconds */).
ThrottleDecision takeCreationToken(berth::Db& db, const std::string& account_id, int burst = 8,
                                   double refill_seconds = 5.0);

}  // namespace berth::projects
