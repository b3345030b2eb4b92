// One PostgreSQL database and one login role per project, on the tenants cluster
// (database.tenants_url; by default the control plane's), made and dropped through a superuser
// connection of that cluster (libpq). The core keeps the superuser URL: plugins reach this
// class only through the service core.tenant_databases.v1 (tenant_databases_service.hpp).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace berth::core {

struct TenantDatabase {
  std::string database;  // "p_<project id>"
  std::string role;      // "p_<project id>"
  std::string password;  // random, 32 characters
};

class TenantDatabases {
 public:
  // admin_url: a superuser libpq URL of the tenants cluster (any database on it).
  explicit TenantDatabases(std::string admin_url);

  // CREATE ROLE (LOGIN, NOSUPERUSER, NOCREATEDB, NOCREATEROLE, NOREPLICATION, password) then
  // CREATE DATABASE ... OWNER role, REVOKE CONNECT ... FROM PUBLIC, GRANT CONNECT to the role;
  // in the database: REVOKE CREATE ON SCHEMA public FROM PUBLIC and make the role own schema
  // public. If any step fails, what was made is dropped again and std::runtime_error is thrown.
  // std::invalid_argument when "p_" + project_id is not a project name.
  TenantDatabase create(const std::string& project_id);

  // Terminates the database's sessions, DROP DATABASE IF EXISTS, DROP ROLE IF EXISTS.
  void drop(const std::string& database, const std::string& role);

  // Revokes PUBLIC's CONNECT and TEMPORARY on every database of the cluster that is not a
  // project's (postgres, the control plane, template1), so a project's role reaches only its
  // own database. Idempotent; run at start.
  void closeOtherDatabases();

  // pg_database_size, 0 when the database does not exist.
  int64_t sizeBytes(const std::string& database);

  // A libpq URL for the project's role on its database (host and port of admin_url).
  std::string projectUrl(const TenantDatabase& db) const;

  // Whether the database and the role exist (for tests and clean-up).
  bool exists(const std::string& database, const std::string& role);

 private:
  std::string admin_url_;
};

}  // namespace berth::core
