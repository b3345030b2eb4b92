// A project's secrets, sealed at rest: the rules of a name and a scope, and their rows. The
// secret routes and projects.secrets.v1 share it, so both refuse and store alike.
#pragma once
#include <berth/services/projects_secrets.hpp>

#include <map>
#include <string>
#include <vector>

#include "context.hpp"
#include "project_record.hpp"

namespace berth::projects {

class SecretStore {
 public:
  // @throw Error 501 "secrets are not configured on this server" without a key.
  explicit SecretStore(const Context& context);

  // Stores the value (replacing one of that name unless only_if_absent) and tells the runtime
  // (project.secret_changed). @throw Error 400 for a bad name or scope.
  berth::projects_secrets::Stored set(const ProjectRecord& project, const std::string& name,
                                      const std::string& value, const std::string& scope,
                                      bool only_if_absent, const std::string& request_id) const;
  std::vector<berth::projects_secrets::SecretName> names(const ProjectRecord& project) const;
  // false when there was none of that name.
  bool remove(const ProjectRecord& project, const std::string& name,
              const std::string& request_id) const;

 private:
  void changed(const ProjectRecord& project, const std::string& name,
               const std::string& request_id) const;
  const Context& c_;
  const SecretBox& box_;
};

// The opened values of a project's secrets for a scope ("runtime" or "build"): those of that
// scope and those of scope "both".
std::map<std::string, std::string> secretValues(const Context& context,
                                                const ProjectRecord& project,
                                                const std::string& scope);

}  // namespace berth::projects
