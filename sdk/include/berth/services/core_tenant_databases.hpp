// SPDX-License-Identifier: MIT
/** @file
 *  core.tenant_databases.v1: one PostgreSQL database and one login role per project, made and
 *  dropped by the core, not by a plugin. The core alone holds the superuser URL of the cluster
 *  that keeps project databases (database.tenants_url; empty: the control plane's cluster,
 *  the embedded one included): no plugin is handed a superuser URL (Services::coreSetting
 *  answers nothing for "database.url"). A caller gets a project's own role and password,
 *  never more. Header-only, no ABI: the requests and answers, their JSON written and read
 *  once, and a typed client.
 *
 *  Who may call: feature plugins (BERTH_KIND_FEATURE), through Services::call. Refused with
 *  403: a template plugin's call ("a template plugin acts on projects only through its
 *  install context"), and every installer's install_call, whichever plugin made the
 *  installer ("the service core.tenant_databases.v1 answers feature plugins only; an
 *  installer cannot call it"). The projects plugin is the one caller today.
 *
 *  Methods:
 *  - `create` {project_id} -> Database {database, role, password}: a login role (no
 *    superuser, createdb, createrole, replication or bypassrls; 50 connections) and a
 *    database it owns, both named "p_<project_id>", in UTF8 from template0; PUBLIC may not
 *    connect to it; the role owns schema public. The password is random (32 of [A-Za-z0-9])
 *    and kept by PostgreSQL only as a SCRAM verifier: the caller keeps it (the projects plugin
 *    seals it in its table) to ask for `url` later. A failed create leaves nothing it made
 *    behind (500 with PostgreSQL's reason; a second create of one id fails and leaves the
 *    first intact).
 *  - `drop` {database, role} -> {}: ends their sessions, then DROP DATABASE and DROP ROLE; a
 *    missing one is no error.
 *  - `size` {database} -> {bytes}: pg_database_size; 0 when the database does not exist.
 *  - `close_others` {} -> {}: revokes PUBLIC's CONNECT and TEMPORARY on every database of
 *    the cluster that is not a project's (postgres, the control plane, template1), so a
 *    project's role reaches only its own database. Idempotent; the projects plugin calls it
 *    when it starts.
 *  - `url` {database, role, password} -> {url}: a libpq URL for the role on its database at
 *    the cluster's host and port, with its hostaddr and sslmode when it has them.
 *
 *  Refusals: 400 "<field> is required and must be a string"; 400 "not a project database or
 *  role name: ..." for any name other than p_ and 1 to 60 of [a-z0-9] (so the service never
 *  touches postgres, template1 or the control plane); 400 "the request is not valid JSON";
 *  404 "service core.tenant_databases.v1 has no method <m>"; 500 with the reason when the
 *  cluster refuses or cannot be reached.
 */
#ifndef BERTH_SERVICES_CORE_TENANT_DATABASES_HPP
#define BERTH_SERVICES_CORE_TENANT_DATABASES_HPP

#include <berth/error.hpp>
#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace berth {
namespace core_tenant_databases {

inline constexpr std::string_view kService = "core.tenant_databases.v1";
inline constexpr std::string_view kCreate = "create";
inline constexpr std::string_view kDrop = "drop";
inline constexpr std::string_view kSize = "size";
inline constexpr std::string_view kCloseOthers = "close_others";
inline constexpr std::string_view kUrl = "url";

/** A project's database, its role and the role's password: create's answer, url's request. */
struct Database {
  std::string database;
  std::string role;
  std::string password;

  bool operator==(const Database&) const = default;
};

/** drop's request. */
struct DropRequest {
  std::string database;
  std::string role;
};

// ---- create ---------------------------------------------------------------------------------

inline nlohmann::json createRequestJson(std::string_view project_id) {
  return {{"project_id", project_id}};
}
/** The project_id of a create. @throw Error 400 when it is missing. */
inline std::string parseCreateRequest(const nlohmann::json& request) {
  return service_json::requiredText(request, "project_id");
}

inline nlohmann::json toJson(const Database& d) {
  return {{"database", d.database}, {"role", d.role}, {"password", d.password}};
}
/** create's answer. @throw Error 500 naming the field the answer lacks. */
inline Database parseDatabase(const nlohmann::json& answer) {
  service_json::Answer read(answer, kService, kCreate);
  return {read.text("database"), read.text("role"), read.text("password")};
}

// ---- drop -----------------------------------------------------------------------------------

inline nlohmann::json toJson(const DropRequest& r) {
  return {{"database", r.database}, {"role", r.role}};
}
inline DropRequest parseDropRequest(const nlohmann::json& request) {
  return {service_json::requiredText(request, "database"),
          service_json::requiredText(request, "role")};
}

// ---- size -----------------------------------------------------------------------------------

inline nlohmann::json sizeRequestJson(std::string_view database) {
  return {{"database", database}};
}
/** The database of a size. @throw Error 400 when it is missing. */
inline std::string parseSizeRequest(const nlohmann::json& request) {
  return service_json::requiredText(request, "database");
}
inline nlohmann::json sizeJson(int64_t bytes) {
  return {{"bytes", bytes}};
}
inline int64_t parseSize(const nlohmann::json& answer) {
  return static_cast<int64_t>(service_json::Answer(answer, kService, kSize).count("bytes"));
}

// ---- url ------------------------------------------------------------------------------------

/** url's request: the Database create answered. @throw Error 400 when a field is missing. */
inline Database parseUrlRequest(const nlohmann::json& request) {
  return {service_json::requiredText(request, "database"),
          service_json::requiredText(request, "role"),
          service_json::requiredText(request, "password")};
}
inline nlohmann::json urlJson(std::string_view url) {
  return {{"url", url}};
}
inline std::string parseUrl(const nlohmann::json& answer) {
  return service_json::Answer(answer, kService, kUrl).text("url");
}

}  // namespace core_tenant_databases

/** core.tenant_databases.v1 through Services::call: a feature plugin's one way to make, drop
 *  and measure project databases. Every method throws the service's Error. */
class CoreTenantDatabases {
 public:
  explicit CoreTenantDatabases(const Services& services) : services_(&services) {}

  core_tenant_databases::Database create(std::string_view project_id) const {
    using namespace core_tenant_databases;
    return parseDatabase(services_->call(kService, kCreate, createRequestJson(project_id)));
  }
  void drop(std::string_view database, std::string_view role) const {
    using namespace core_tenant_databases;
    services_->call(kService, kDrop, toJson(DropRequest{std::string(database), std::string(role)}));
  }
  int64_t sizeBytes(std::string_view database) const {
    using namespace core_tenant_databases;
    return parseSize(services_->call(kService, kSize, sizeRequestJson(database)));
  }
  void closeOthers() const {
    using namespace core_tenant_databases;
    services_->call(kService, kCloseOthers, nlohmann::json::object());
  }
  std::string url(const core_tenant_databases::Database& database) const {
    using namespace core_tenant_databases;
    return parseUrl(services_->call(kService, kUrl, toJson(database)));
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_CORE_TENANT_DATABASES_HPP
