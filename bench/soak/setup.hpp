// Before the soak: the permanent projects, their first releases (each app answered once), the
// data project's table with the data API opened on it, and a schedule every minute on each
// app, so that runs fire (and wake the cold apps' neighbours) during the soak.
#pragma once
#include <string>
#include <vector>

#include "soak/client.hpp"
#include "soak/world.hpp"

namespace berth::soak {

// Throws with the request and answer when a step fails.
void setUp(const Client& client, World& world);

// The permanent schedules' runs so far: (project, schedule id).
std::vector<std::pair<std::string, std::string>> permanentSchedules(const Client& client,
                                                                    const World& world);

}  // namespace berth::soak
