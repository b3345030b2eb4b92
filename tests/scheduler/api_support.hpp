// Helpers shared by the scheduler's API and runner tests: the projects tests' account and team
// helpers, plus schedules made and read over the API.
#pragma once
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "projects/api_support.hpp"
#include "support/berthd_process.hpp"

namespace berth::testing::scheduler_api {

using namespace berth::testing::projects_api;

inline nlohmann::json scheduleBody(const std::string& name, const std::string& spec,
                                   const std::string& path) {
  return {{"name", name}, {"spec", spec}, {"path", path}};
}

// POST /projects/{project}/schedules that must answer 201; returns the schedule.
inline nlohmann::json mustSchedule(const ApiClient& api, const std::string& project,
                                   const std::string& name, const std::string& spec,
                                   const std::string& path) {
  auto r = api.post("/projects/" + project + "/schedules", scheduleBody(name, spec, path));
  if (r.status != 201)
    throw std::runtime_error("POST /projects/" + project +
                             "/schedules: " + std::to_string(r.status) + " " + r.body + r.error);
  return r.json();
}

// The project's schedules (GET /projects/{project}/schedules must answer 200).
inline nlohmann::json schedulesOf(const ApiClient& api, const std::string& project) {
  auto r = api.get("/projects/" + project + "/schedules");
  if (r.status != 200)
    throw std::runtime_error("GET /projects/" + project +
                             "/schedules: " + std::to_string(r.status) + " " + r.body);
  return r.json().at("schedules");
}

// One schedule as the project's list shows it; null when it is not listed.
inline nlohmann::json listed(const ApiClient& api, const std::string& project,
                             const std::string& id) {
  for (const auto& s : schedulesOf(api, project))
    if (s.at("id") == id) return s;
  return nullptr;
}

inline nlohmann::json runsOf(const ApiClient& api, const std::string& project,
                             const std::string& id) {
  auto r = api.get("/projects/" + project + "/schedules/" + id + "/runs");
  if (r.status != 200)
    throw std::runtime_error("GET runs: " + std::to_string(r.status) + " " + r.body);
  return r.json().at("runs");
}

// The account id of a user: the owner of one of its own projects.
inline std::string accountIdOf(const ApiClient& api, const std::string& own_project) {
  auto r = api.get("/projects/" + own_project);
  if (r.status != 200) throw std::runtime_error("GET /projects/" + own_project + ": " + r.body);
  return r.json().at("owner").at("id").get<std::string>();
}

}  // namespace berth::testing::scheduler_api
