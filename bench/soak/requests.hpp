// Short ways to write the soak's requests: a JSON body, a GET, a DELETE.
#pragma once
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "soak/client.hpp"

namespace berth::soak {

inline Request jsonRequest(std::string family, std::string method, std::string path,
                           const nlohmann::json& body, std::set<long> expect) {
  Request r;
  r.family = std::move(family);
  r.method = std::move(method);
  r.path = std::move(path);
  r.body = body.dump();
  r.headers = {Client::jsonType()};
  r.expect = std::move(expect);
  return r;
}

inline Request get(std::string family, std::string path, std::set<long> expect = {200}) {
  Request r;
  r.family = std::move(family);
  r.path = std::move(path);
  r.expect = std::move(expect);
  return r;
}

inline Request del(std::string family, std::string path, std::set<long> expect) {
  Request r = get(std::move(family), std::move(path), std::move(expect));
  r.method = "DELETE";
  return r;
}

// A request to a project's host through the edge (app traffic; no token).
inline Request onHost(std::string family, const std::string& project, std::string path,
                      std::string marker) {
  Request r = get(std::move(family), std::move(path));
  r.host = project + ".localhost";
  r.token = false;
  r.body_has = std::move(marker);
  return r;
}

}  // namespace berth::soak
