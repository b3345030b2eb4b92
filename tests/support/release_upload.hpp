// A release uploaded through the API (POST /projects/{name}/deploys) and waited for until it is
// built, or live, for the tests that need a running app (runtime's, isolation's, the fault
// cases').
#pragma once
#include <chrono>
#include <stdexcept>
#include <string>

#include "projects/api_support.hpp"
#include "support/http_client.hpp"
#include "support/tar_gz.hpp"

namespace berth::testing {

// A Node app's release (package.json naming server.js, and server.js) as a gzip tar.
inline std::string nodeRelease(const std::string& server_js) {
  return TarGz()
      .file("package.json", R"({"name": "app", "main": "server.js"})")
      .file("server.js", server_js)
      .finish();
}

// Polls GET /projects/{project}/deploys/{id} until it answers 200 with a status other than
// "building"; returns that release (live or failed). Throws with the last answer when `limit`
// passes first.
inline nlohmann::json waitUntilBuilt(const ApiClient& api, const std::string& project,
                                     const std::string& id,
                                     std::chrono::milliseconds limit = std::chrono::seconds(90)) {
  HttpResult last;
  nlohmann::json release;
  const bool built = projects_api::eventually(
      [&] {
        last = api.get("/projects/" + project + "/deploys/" + id);
        if (last.status != 200) return false;
        release = last.json();
        return release.value("status", "") != "building";
      },
      limit);
  if (!built)
    throw std::runtime_error("release " + id + " was not built in time: " +
                             std::to_string(last.status) + " " + last.body + last.error);
  return release;
}

// Uploads a gzip tar as a release of `project` and waits until it is built; returns the release
// (live or failed), or throws when the upload is refused.
inline nlohmann::json deployBuilt(const ApiClient& api, const std::string& project,
                                  const std::string& archive,
                                  std::chrono::milliseconds limit = std::chrono::seconds(90)) {
  auto r = api.raw("POST", "/projects/" + project + "/deploys", archive,
                   {"Content-Type: application/gzip"});
  if (r.status != 202)
    throw std::runtime_error("upload: " + std::to_string(r.status) + " " + r.body + r.error);
  return waitUntilBuilt(api, project, r.json().at("id").get<std::string>(), limit);
}

// deployBuilt for a release that must go live: returns the release, or throws with its view.
inline nlohmann::json deployLiveRelease(
    const ApiClient& api, const std::string& project, const std::string& archive,
    std::chrono::milliseconds limit = std::chrono::seconds(90)) {
  nlohmann::json release = deployBuilt(api, project, archive, limit);
  if (release.value("status", "") != "live")
    throw std::runtime_error("the release is not live: " + release.dump());
  return release;
}

// deployLiveRelease's id.
inline std::string deployLive(const ApiClient& api, const std::string& project,
                              const std::string& archive,
                              std::chrono::milliseconds limit = std::chrono::seconds(90)) {
  return deployLiveRelease(api, project, archive, limit).at("id").get<std::string>();
}

}  // namespace berth::testing
