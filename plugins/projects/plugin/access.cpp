#include "access.hpp"

namespace berth::projects {

berth::Error noProject(const std::string& name) {
  return berth::Error::notFound("no project called " + name);
}

Access::Access(const Context& context, const berth::Request& request)
    : context_(context), user_id_(request.caller().accountId) {
  accounts_ = context.services->memberships(user_id_);
}

std::vector<std::string> Access::accountIds() const {
  std::vector<std::string> ids;
  for (const auto& a : accounts_) ids.push_back(a.id);
  return ids;
}

const berth::Account* Access::account(const std::string& id) const {
  for (const auto& a : accounts_)
    if (a.id == id) return &a;
  return nullptr;
}

const berth::Account* Access::team(const std::string& slug) const {
  for (const auto& a : accounts_)
    if (a.isTeam && a.slug == slug) return &a;
  return nullptr;
}

const berth::Account& Access::own() const {
  for (const auto& a : accounts_)
    if (a.id == user_id_) return a;
  throw berth::Error::unauthorized("that token is not valid, or has expired");
}

ProjectRecord Access::project(const std::string& name) const {
  auto found = findReadyProject(context_.db(), name);
  if (!found || !account(found->account_id)) throw noProject(name);
  return *found;
}

bool Access::canManage(const ProjectRecord& project) const {
  const berth::Account* a = account(project.account_id);
  return a && a->canManage();
}

}  // namespace berth::projects
