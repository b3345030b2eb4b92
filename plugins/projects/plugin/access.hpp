// Who reaches which project: the caller's own account and every team it belongs to. A project
// outside that set answers exactly like a missing one.
#pragma once
#include <berth/plugin.hpp>

#include <string>
#include <vector>

#include "context.hpp"
#include "project_record.hpp"

namespace berth::projects {

class Access {
 public:
  Access(const Context& context, const berth::Request& request);

  const std::vector<berth::Account>& accounts() const { return accounts_; }
  std::vector<std::string> accountIds() const;
  const berth::Account* account(const std::string& id) const;
  // The team of that slug the caller belongs to, or nullptr.
  const berth::Account* team(const std::string& slug) const;
  // The caller's own account.
  const berth::Account& own() const;

  // The ready project of that name the caller reaches; throws 404 "no project called <name>".
  ProjectRecord project(const std::string& name) const;
  // Owner or team admin of the project's account.
  bool canManage(const ProjectRecord& project) const;

 private:
  const Context& context_;
  std::string user_id_;
  std::vector<berth::Account> accounts_;
};

berth::Error noProject(const std::string& name);

}  // namespace berth::projects
