// SPDX-License-Identifier: MIT
/** @file
 *  Accounts and teams as the core knows them (the core owns them; plugins read them through
 *  Services::account() and Services::memberships()).
 */
#ifndef BERTH_ACCOUNTS_HPP
#define BERTH_ACCOUNTS_HPP

#include <berth/host_ref.hpp>

#include <cstdint>
#include <string>

namespace berth {

/** A user's role in an account. A user owns its own account. */
enum class Role : uint32_t {
  Member = BERTH_ROLE_MEMBER,
  Admin = BERTH_ROLE_ADMIN,
  Owner = BERTH_ROLE_OWNER
};

/** A user account or a team (an account with members). */
struct Account {
  std::string id;
  std::string slug;
  std::string email;  ///< empty for teams
  std::string plan;
  bool isTeam = false;
  /** In Services::memberships(): the user's role in this account. Owner otherwise. */
  Role role = Role::Owner;
  int64_t createdAt = 0;  ///< Unix seconds

  /** An owner or an admin may manage (delete a project, import a database). */
  bool canManage() const noexcept { return role == Role::Owner || role == Role::Admin; }
};

namespace detail {
inline Account toAccount(const berth_account& raw) {
  Account account;
  account.id = std::string(toView(raw.id));
  account.slug = std::string(toView(raw.slug));
  account.email = std::string(toView(raw.email));
  account.plan = std::string(toView(raw.plan));
  account.isTeam = raw.is_team != 0;
  account.role = raw.role <= BERTH_ROLE_OWNER ? static_cast<Role>(raw.role) : Role::Member;
  account.createdAt = raw.created_at;
  return account;
}
}  // namespace detail

}  // namespace berth

#endif  // BERTH_ACCOUNTS_HPP
