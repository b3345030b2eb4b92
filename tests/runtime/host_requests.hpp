// Requests to a project's host through berthd's edge, shared by the runtime's API tests.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../projects/api_support.hpp"
#include "support/berthd_process.hpp"
#include "support/http_client.hpp"

namespace berth::testing::runtime_api {

inline HttpResult onProjectHost(const BerthdProcess& server, const std::string& name,
                                const std::string& path, std::vector<std::string> headers = {},
                                const std::string& method = "GET", const std::string& body = "") {
  return sendToHost(server.baseUrl(), name + ".localhost", method, path, std::move(headers), body);
}

// A project's log entries (GET /projects/<name>/logs, the last 1000).
inline nlohmann::json projectLogs(const ApiClient& api, const std::string& name) {
  auto r = api.get("/projects/" + name + "/logs?limit=1000");
  EXPECT_EQ(r.status, 200) << r.body;
  return r.json().value("logs", nlohmann::json::array());
}

// A purge starts a fresh cache: soon the next answer to `path` is not the kept one any more.
inline void expectPurgeStartsAfresh(const BerthdProcess& server, const ApiClient& api,
                                    const std::string& name, const std::string& path,
                                    const std::string& kept_body) {
  ASSERT_EQ(api.del("/projects/" + name + "/cache").status, 204);
  HttpResult fresh;
  EXPECT_TRUE(projects_api::eventually([&] {
    fresh = onProjectHost(server, name, path);
    return fresh.header("x-berth-cache") != "HIT" && fresh.body != kept_body;
  })) << fresh.body;
}

}  // namespace berth::testing::runtime_api
