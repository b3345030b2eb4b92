// Set-up shared by the isolation tests (tests/isolation/*_test.cpp): a berthd whose tenants try
// to reach each other, releases made by the system's tar (these tests link no libarchive) and
// uploaded the way a tenant would.
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../projects/api_support.hpp"
#include "support/berthd_process.hpp"
#include "support/http_client.hpp"
#include "support/tar_gz.hpp"
#include "util/process.hpp"

namespace berth::testing::isolation {

// The projects plugin's settings for a suite that makes many projects: a secrets key and room
// for the creations (more keys of `projects:` may follow).
inline std::string manyProjectsYaml() {
  return projects_api::secretsKeyYaml() + "  creation_burst: 100\n";
}

// Releases are made by tar(1): these tests link no libarchive.
using TarBuilder = TarGz;

// POST /projects/<name>/deploys with a .tar.gz; the answer (202 and the release's id when
// taken).
inline HttpResult uploadRelease(const ApiClient& api, const std::string& name,
                                const std::string& archive) {
  return api.raw("POST", "/projects/" + name + "/deploys", archive,
                 {"Content-Type: application/gzip"});
}

// A release's status ("building", "live", ...).
inline std::string releaseStatus(const ApiClient& api, const std::string& name,
                                 const std::string& id) {
  return api.get("/projects/" + name + "/deploys/" + id).json().value("status", "");
}

// A berthd shared by every test of a suite, stopped cleanly (berthd exits well, no sanitizer
// report) at the end. A suite's SetUpTestSuite calls startServer with its plugins and settings.
class HostileTenantSuite : public projects_api::ProjectsServerSuite {
 protected:
  static void TearDownTestSuite() { stopServer(); }

  // Where a live release is unpacked.
  static std::string releaseDir(const std::string& name, const std::string& id) {
    return server->dataDir() + "/releases/" + projects_api::projectId(*server, name) + "/" + id;
  }
};

}  // namespace berth::testing::isolation
