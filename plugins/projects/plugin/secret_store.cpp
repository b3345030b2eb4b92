#include "secret_store.hpp"

#include <regex>

#include "random_text.hpp"

namespace berth::projects {

namespace {

// The box is bound to the project and the name, so a sealed value moved elsewhere won't open.
std::string associated(const ProjectRecord& project, const std::string& name) {
  return project.id + "/" + name;
}

const SecretBox& requireBox(const Context& context) {
  if (!context.secrets) throw Error::notImplemented("secrets are not configured on this server");
  return *context.secrets;
}

void checkName(const std::string& name) {
  static const std::regex valid("^[A-Z_][A-Z0-9_]*$");
  if (!std::regex_match(name, valid) || name.size() > 255)
    throw Error::badRequest(
        "a secret name is capital letters, digits and underscores, starting with a letter or "
        "underscore");
  if (name == "DATABASE_URL" || name.rfind("PG", 0) == 0)
    throw Error::badRequest("DATABASE_URL and names starting with PG are set by the platform");
}

void checkScope(const std::string& scope) {
  if (scope != "runtime" && scope != "build" && scope != "both")
    throw Error::badRequest("scope must be runtime, build or both");
}

}  // namespace

SecretStore::SecretStore(const Context& context) : c_(context), box_(requireBox(context)) {}

berth::projects_secrets::Stored SecretStore::set(const ProjectRecord& project,
                                                 const std::string& name, const std::string& value,
                                                 const std::string& scope, bool only_if_absent,
                                                 const std::string& request_id) const {
  checkName(name);
  checkScope(scope);
  int64_t at = nowSeconds();
  std::string sealed = box_.seal(value, associated(project, name));
  berth::projects_secrets::Stored out;
  if (only_if_absent) {
    auto r = c_.db().exec(
        "INSERT INTO projects.secrets (project_id, name, scope, sealed_value, updated_at) "
        "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, name) DO NOTHING RETURNING name",
        project.id, name, scope, sealed, at);
    out.stored = !r.empty();
    if (!out.stored) {
      auto kept = c_.db().exec(
          "SELECT scope, updated_at FROM projects.secrets WHERE project_id = $1 AND name = $2",
          project.id, name);
      out.secret = {name, kept.get<std::string>(0, 0), kept.get<int64_t>(0, 1)};
      return out;
    }
  } else {
    c_.db().exec(
        "INSERT INTO projects.secrets (project_id, name, scope, sealed_value, updated_at) "
        "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, name) DO UPDATE SET "
        "scope = EXCLUDED.scope, sealed_value = EXCLUDED.sealed_value, "
        "updated_at = EXCLUDED.updated_at",
        project.id, name, scope, sealed, at);
    out.stored = true;
  }
  out.secret = {name, scope, at};
  changed(project, name, request_id);
  return out;
}

std::vector<berth::projects_secrets::SecretName> SecretStore::names(
    const ProjectRecord& project) const {
  auto r = c_.db().exec(
      "SELECT name, scope, updated_at FROM projects.secrets WHERE project_id = $1 ORDER BY name",
      project.id);
  std::vector<berth::projects_secrets::SecretName> names;
  for (int64_t i = 0; i < r.rows(); ++i)
    names.push_back({r.get<std::string>(i, 0), r.get<std::string>(i, 1), r.get<int64_t>(i, 2)});
  return names;
}

bool SecretStore::remove(const ProjectRecord& project, const std::string& name,
                         const std::string& request_id) const {
  auto r = c_.db().exec("DELETE FROM projects.secrets WHERE project_id = $1 AND name = $2",
                        project.id, name);
  if (r.affected() == 0) return false;
  changed(project, name, request_id);
  return true;
}

// The runtime restarts the project; a failure there must not undo the stored secret.
void SecretStore::changed(const ProjectRecord& project, const std::string& name,
                          const std::string& request_id) const {
  try {
    c_.services->fire("project.secret_changed",
                      {{"id", project.id}, {"name", project.name}, {"secret", name}});
  } catch (const std::exception& e) {
    c_.logger()
        .withProject(project.name)
        .write(berth::LogLevel::Warn, request_id, std::string("secret_changed: ") + e.what());
  }
}

std::map<std::string, std::string> secretValues(const Context& context,
                                                const ProjectRecord& project,
                                                const std::string& scope) {
  std::map<std::string, std::string> values;
  if (!context.secrets) return values;
  auto r = context.db().exec(
      "SELECT name, sealed_value FROM projects.secrets WHERE project_id = $1 "
      "AND (scope = $2 OR scope = 'both')",
      project.id, scope);
  for (int64_t i = 0; i < r.rows(); ++i) {
    std::string name = r.get<std::string>(i, 0);
    values[name] = context.secrets->open(r.get<std::string>(i, 1), associated(project, name));
  }
  return values;
}

}  // namespace berth::projects
