// `berthd serve`: the whole service, from the database to the edge, until SIGTERM.
#pragma once
#include "config/settings.hpp"

namespace berth::core {

// Returns the process exit code. Signals SIGTERM/SIGINT must be blocked in every thread before
// this is called (main does it) so that they are taken here with sigwait.
int runServe(const Settings& settings);

}  // namespace berth::core
