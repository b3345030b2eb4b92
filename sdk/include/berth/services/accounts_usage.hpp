// SPDX-License-Identifier: MIT
/** @file
 *  accounts.usage.v1: the core's contract for GET /me, offered by the plugin that owns projects
 *  (the projects plugin): what an account uses of its plan. Header-only, no ABI: the types,
 *  their JSON written and read once, and a typed client.
 *
 *  Method: `get` {account_id} -> {projects_used}: every project of the account, in any state,
 *  as the plan's limit counts them. An account_id left out reads as empty (no projects).
 */
#ifndef BERTH_SERVICES_ACCOUNTS_USAGE_HPP
#define BERTH_SERVICES_ACCOUNTS_USAGE_HPP

#include <berth/services.hpp>
#include <berth/services/service_json.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace berth {
namespace accounts_usage {

inline constexpr std::string_view kService = "accounts.usage.v1";
inline constexpr std::string_view kGet = "get";

struct Usage {
  int64_t projects_used = 0;

  bool operator==(const Usage&) const = default;
};

inline nlohmann::json accountJson(std::string_view account_id) {
  return {{"account_id", account_id}};
}
/** The account_id of a request. @throw Error 400 "account_id must be a string". */
inline std::string parseAccountRequest(const nlohmann::json& request) {
  return service_json::optionalText(request, "account_id").value_or("");
}

inline nlohmann::json toJson(const Usage& u) {
  return {{"projects_used", u.projects_used}};
}
inline Usage parseUsage(const nlohmann::json& answer) {
  return {
      static_cast<int64_t>(service_json::Answer(answer, kService, kGet).count("projects_used"))};
}

}  // namespace accounts_usage

/** The typed client of accounts.usage.v1. */
class AccountsUsage {
 public:
  explicit AccountsUsage(const Services& services) : services_(&services) {}

  /** The account's usage; std::nullopt when no loaded plugin offers the service. */
  std::optional<accounts_usage::Usage> tryGet(std::string_view account_id) const {
    using namespace accounts_usage;
    std::optional<nlohmann::json> answer =
        services_->tryCall(kService, kGet, accountJson(account_id));
    if (!answer) return std::nullopt;
    return parseUsage(*answer);
  }

 private:
  const Services* services_;
};

}  // namespace berth

#endif  // BERTH_SERVICES_ACCOUNTS_USAGE_HPP
