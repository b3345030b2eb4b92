// A release uploaded through the API and waited for until it is live, for the tests that need a
// running app (runtime's, the fault cases').
#pragma once
#include <chrono>
#include <stdexcept>
#include <string>

#include "projects/api_support.hpp"
#include "support/http_client.hpp"

namespace berth::testing {

// Uploads a gzip tar as a release of `project` and waits until it is no longer building; returns
// its id, or throws with the release's view when it did not go live.
inline std::string deployLive(const ApiClient& api, const std::string& project,
                              const std::string& archive,
                              std::chrono::milliseconds limit = std::chrono::seconds(90)) {
  auto r = api.raw("POST", "/projects/" + project + "/deploys", archive,
                   {"Content-Type: application/gzip"});
  if (r.status != 202)
    throw std::runtime_error("upload: " + std::to_string(r.status) + " " + r.body);
  const std::string id = r.json().at("id").get<std::string>();
  nlohmann::json release;
  projects_api::eventually(
      [&] {
        release = api.get("/projects/" + project + "/deploys/" + id).json();
        return release.value("status", "") != "building";
      },
      limit);
  if (release.value("status", "") != "live")
    throw std::runtime_error("the release is not live: " + release.dump());
  return id;
}

}  // namespace berth::testing
