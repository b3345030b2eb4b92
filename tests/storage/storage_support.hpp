// Helpers shared by the storage plugin's API tests: uploads and downloads through berthd's
// edge (the API host and a project host on the same port), and a look at the blob store's
// folders under data_dir.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../projects/api_support.hpp"

namespace berth::testing::storage_api {

using projects_api::Account;

inline const std::string kTooLarge = "the request body is too large for this route (limit 64 MB)";

// POST /projects/{project}/files/{encoded_path} with the bytes as the raw body.
inline HttpResult upload(const ApiClient& api, const std::string& project,
                         const std::string& encoded_path, const std::string& bytes) {
  return api.raw("POST", "/projects/" + project + "/files/" + encoded_path, bytes,
                 {"Content-Type: application/octet-stream"});
}

inline HttpResult removeFile(const ApiClient& api, const std::string& project,
                             const std::string& encoded_path) {
  return api.del("/projects/" + project + "/files/" + encoded_path);
}

// A request to the project's own host (<project>.localhost), through the same edge port.
inline HttpResult onProjectHost(const BerthdProcess& server, const std::string& project,
                                const std::string& method, const std::string& path,
                                std::vector<std::string> headers = {}) {
  headers.push_back("Host: " + project + ".localhost");
  HttpRequestSpec spec;
  spec.method = method;
  spec.url = server.baseUrl() + path;
  spec.headers = std::move(headers);
  return send(spec);
}

inline HttpResult download(const BerthdProcess& server, const std::string& project,
                           const std::string& encoded_path, std::vector<std::string> headers = {}) {
  return onProjectHost(server, project, "GET", "/_files/" + encoded_path, std::move(headers));
}

// The files of GET /projects/{project}/files, by path; throws unless it answers 200.
inline std::map<std::string, nlohmann::json> listed(const ApiClient& api,
                                                    const std::string& project) {
  auto r = api.get("/projects/" + project + "/files");
  if (r.status != 200)
    throw std::runtime_error("GET files: " + std::to_string(r.status) + " " + r.body);
  std::map<std::string, nlohmann::json> out;
  auto body = r.json();  // must outlive the loop
  for (const auto& f : body.at("files")) out[f.at("path").get<std::string>()] = f;
  return out;
}

inline std::string objectsDir(const BerthdProcess& server) {
  return server.dataDir() + "/blobs/objects";
}

// Regular files under a folder, recursively (0 when it does not exist).
inline size_t filesUnder(const std::string& dir) {
  std::error_code ec;
  size_t n = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file()) ++n;
  return n;
}

// A made-up binary body: every byte value, `repeat` times, each round rotated so that no
// two 256-byte blocks are equal.
inline std::string everyByte(size_t repeat) {
  std::string out;
  out.reserve(repeat * 256);
  for (size_t r = 0; r < repeat; ++r)
    for (int b = 0; b < 256; ++b) out.push_back(static_cast<char>((b + r) & 0xFF));
  return out;
}

}  // namespace berth::testing::storage_api
