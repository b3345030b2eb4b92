// SPDX-License-Identifier: MIT
/** @file
 *  projects.secrets.v1: a project's secrets for other plugins and installers (an installer
 *  generating N8N_ENCRYPTION_KEY once). Header-only, no ABI: the requests and answers, their
 *  JSON written and read once, and a typed client.
 *
 *  Methods:
 *  - `set` {project_id, name, value, scope?, only_if_absent?} -> Stored: stores the value
 *    sealed, as POST /projects/{name}/secrets does, with the same rules for name and scope
 *    (scope "runtime" by default). With only_if_absent a secret of that name that exists is
 *    kept, value and scope: `stored` is false. A stored secret restarts the project's app.
 *  - `names` {project_id} -> {secrets: [{name, scope, updated_at}]}: never the values.
 *
 *  Invariants: values never leave the projects plugin through this service. Refusals: 404
 *  "no project called <id>", 501 "secrets are not configured on this server", 400 for a bad
 *  name or scope (the route's texts), 400 "<field> is required and must be a string".
 */
#ifndef BERTH_SERVICES_PROJECTS_SECRETS_HPP
#define BERTH_SERVICES_PROJECTS_SECRETS_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace berth {
namespace projects_secrets {

inline constexpr std::string_view kService = "projects.secrets.v1";
inline constexpr std::string_view kSet = "set";
inline constexpr std::string_view kNames = "names";

struct SetRequest {
  std::string project_id;
  std::string name;
  std::string value;
  std::string scope = "runtime";
  bool only_if_absent = false;
};

/** A secret as listed: never its value. */
struct SecretName {
  std::string name;
  std::string scope;
  int64_t updated_at = 0;
};

struct Stored {
  SecretName secret;
  bool stored = false;  ///< false: only_if_absent kept the one there
};

inline nlohmann::json toJson(const SetRequest& r) {
  return {{"project_id", r.project_id},
          {"name", r.name},
          {"value", r.value},
          {"scope", r.scope},
          {"only_if_absent", r.only_if_absent}};
}

inline SetRequest parseSetRequest(const nlohmann::json& request) {
  SetRequest r;
  r.project_id = service_json::requiredText(request, "project_id");
  r.name = service_json::requiredText(request, "name");
  r.value = service_json::requiredText(request, "value");
  r.scope = service_json::optionalText(request, "scope").value_or("runtime");
  r.only_if_absent = service_json::optionalFlag(request, "only_if_absent").value_or(false);
  return r;
}

inline nlohmann::json toJson(const SecretName& s) {
  return {{"name", s.name}, {"scope", s.scope}, {"updated_at", s.updated_at}};
}

inline SecretName readSecretName(const service_json::Answer& read) {
  return {read.text("name"), read.text("scope"), read.integer("updated_at")};
}

inline nlohmann::json toJson(const Stored& s) {
  nlohmann::json j = toJson(s.secret);
  j["stored"] = s.stored;
  return j;
}

inline Stored parseStored(const nlohmann::json& answer) {
  service_json::Answer read(answer, kService, kSet);
  return {readSecretName(read), read.flag("stored")};
}

inline nlohmann::json namesJson(const std::vector<SecretName>& names) {
  nlohmann::json list = nlohmann::json::array();
  for (const SecretName& n : names) list.push_back(toJson(n));
  return {{"secrets", list}};
}

inline std::vector<SecretName> parseNames(const nlohmann::json& answer) {
  service_json::Answer read(answer, kService, kNames);
  std::vector<SecretName> names;
  const nlohmann::json& list = read.array("secrets");
  for (size_t i = 0; i < list.size(); ++i)
    names.push_back(readSecretName(
        service_json::Answer(list[i], kService, kNames, "secrets/" + std::to_string(i))));
  return names;
}

}  // namespace projects_secrets

/** projects.secrets.v1 through Services::call. */
class ProjectsSecrets {
 public:
  explicit ProjectsSecrets(const Services& services) : services_(&services) {}

  projects_secrets::Stored set(const projects_secrets::SetRequest& request) const {
    return projects_secrets::parseStored(services_->call(
        projects_secrets::kService, projects_secrets::kSet, projects_secrets::toJson(request)));
  }
  std::vector<projects_secrets::SecretName> names(std::string_view project_id) const {
    return projects_secrets::parseNames(services_->call(
        projects_secrets::kService, projects_secrets::kNames, {{"project_id", project_id}}));
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_PROJECTS_SECRETS_HPP
