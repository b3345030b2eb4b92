// SPDX-License-Identifier: MIT
/** @file
 *  berth::Services: what the core offers a plugin once it runs. Handed to Plugin::start() and
 *  reachable afterwards through Plugin::services().
 *
 *  THREADING: every method may be called from any thread, concurrently.
 */
#ifndef BERTH_SERVICES_HPP
#define BERTH_SERVICES_HPP

#include <berth/accounts.hpp>
#include <berth/db.hpp>
#include <berth/error.hpp>
#include <berth/host_ref.hpp>
#include <berth/installer.hpp>
#include <berth/logger.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth {

namespace detail {
struct PluginAccess;
}

class Services {
 public:
  Services() = default;
  explicit Services(HostRef host) : host_(host) {}

  /** The plugin's own configuration section (<id>: in berth.yaml) with the declared defaults
   *  filled in. Read from start() on; an empty object before. */
  const nlohmann::json& config() const noexcept { return config_; }

  /** A core setting by dotted name: "server.apps_domain", "data_dir", "database.url",
   *  "server.listen". std::nullopt when the core has no such setting. */
  std::optional<std::string> coreSetting(std::string_view key) const {
    return detail::toOptional(api()->core_setting(host_.host, detail::toStr(key)));
  }

  /** Log lines named plugin.<id>. */
  Logger logger() const { return Logger(host_); }

  /** The control-plane database. */
  Db db() const { return Db(host_); }

  /** Calls a method of a service another plugin offers (names carry a version:
   *  "storage.blobs.v1"). The plugin should list the offering plugin in its dependencies.
   *  @return the answer, or std::nullopt when no loaded plugin offers the service.
   *  @throw Error with the status and message the service answered with. */
  std::optional<nlohmann::json> tryCall(std::string_view service, std::string_view method,
                                        const nlohmann::json& request) const {
    detail::Buffer out(api());
    std::string request_json = detail::dumpJson(request);
    int32_t status = api()->call_service(host_.host, detail::toStr(service), detail::toStr(method),
                                         detail::toStr(request_json), out.get());
    if (status == BERTH_ERR_NOT_FOUND) return std::nullopt;
    std::string what = "service " + std::string(service) + " (" + std::string(method) + ")";
    if (status != BERTH_OK) throw detail::errorFromAnswer(out.view(), what + " failed");
    if (out.view().empty()) return nlohmann::json();
    nlohmann::json answer = nlohmann::json::parse(out.view(), nullptr, false);
    if (answer.is_discarded()) throw Error(500, what + " answered non-JSON");
    return answer;
  }

  /** As tryCall, but a missing service is an Error 500 "service X is not available". */
  nlohmann::json call(std::string_view service, std::string_view method,
                      const nlohmann::json& request) const {
    std::optional<nlohmann::json> answer = tryCall(service, method, request);
    if (!answer) throw Error(500, "service " + std::string(service) + " is not available");
    return std::move(*answer);
  }

  /** Fires an event to every plugin's hook on it, in load order ("project.deleting" ...).
   *  @throw Error with the status and message of the first hook that refused. */
  void fire(std::string_view event, const nlohmann::json& payload) const {
    detail::Buffer out(api());
    std::string payload_json = detail::dumpJson(payload);
    int32_t status =
        api()->fire_hook(host_.host, detail::toStr(event), detail::toStr(payload_json), out.get());
    if (status == BERTH_OK || status == BERTH_ERR_NOT_FOUND) return;
    throw detail::errorFromAnswer(out.view(), "a hook on " + std::string(event) + " failed");
  }

  /** An account or team by id or slug. @throw Error 503 when it could not be read. */
  std::optional<Account> account(std::string_view id_or_slug) const {
    AccountSink sink;
    int32_t status =
        api()->account_get(host_.host, detail::toStr(id_or_slug), &AccountSink::visit, &sink);
    if (status == BERTH_ERR_NOT_FOUND) return std::nullopt;
    sink.check(status);
    if (sink.accounts.empty()) return std::nullopt;
    return std::move(sink.accounts.front());
  }

  /** The user's own account (role Owner) and every team it belongs to, with its role there.
   *  @throw Error 503 when they could not be read. */
  std::vector<Account> memberships(std::string_view user_account_id) const {
    AccountSink sink;
    int32_t status = api()->account_memberships(host_.host, detail::toStr(user_account_id),
                                                &AccountSink::visit, &sink);
    if (status == BERTH_ERR_NOT_FOUND) return {};
    sink.check(status);
    return std::move(sink.accounts);
  }

  /** How many projects a plan allows; std::nullopt when it sets no limit.
   *  @throw Error 422 for a plan the configuration does not know. */
  std::optional<int64_t> planProjectLimit(std::string_view plan) const {
    int64_t limit = api()->plan_project_limit(host_.host, detail::toStr(plan));
    if (limit == -1) return std::nullopt;
    if (limit < 0) throw Error(422, "unknown plan \"" + std::string(plan) + "\"");
    return limit;
  }

  /** Replaces this plugin's list of custom hosts (verified domains) that the edge sends to
   *  the project gateway; the core reloads the edge. */
  void setCustomHosts(const std::vector<std::string>& hosts) const {
    std::vector<berth_str> raw;
    raw.reserve(hosts.size());
    for (const auto& host : hosts) raw.push_back(detail::toStr(host));
    if (api()->set_custom_hosts(host_.host, raw.empty() ? nullptr : raw.data(), raw.size()) !=
        BERTH_OK)
      throw Error(500, "the edge did not take the custom hosts");
  }

  /** Every installer that loaded plugins declared, installable or not. */
  std::vector<InstallerRef> installers() const {
    InstallerSink sink{api(), {}, false};
    api()->list_installers(host_.host, &InstallerSink::visit, &sink);
    if (sink.failed) throw Error(500, "could not list the installers");
    return std::move(sink.installers);
  }

  /** The installer with this slug. */
  std::optional<InstallerRef> installer(std::string_view slug) const {
    for (auto& installer : installers())
      if (installer.slug() == slug) return installer;
    return std::nullopt;
  }

  /** The ABI handles, for what the C++ layer does not wrap. */
  const HostRef& host() const noexcept { return host_; }

 private:
  friend struct detail::PluginAccess;

  /** Services are bound when the plugin registers; a plugin's constructor is too early. */
  const berth_host_api* api() const {
    if (!host_.bound()) throw Error(500, "berth::Services used before the plugin was registered");
    return host_.api;
  }

  /** Visitors run inside the core's call: nothing may be thrown through it. */
  struct AccountSink {
    std::vector<Account> accounts;
    bool failed = false;

    static void visit(void* context, const berth_account* account) noexcept {
      auto* sink = static_cast<AccountSink*>(context);
      try {
        sink->accounts.push_back(detail::toAccount(*account));
      } catch (...) {
        sink->failed = true;
      }
    }
    void check(int32_t status) const {
      if (status != BERTH_OK || failed) throw Error(503, "could not read the accounts");
    }
  };

  struct InstallerSink {
    const berth_host_api* api;
    std::vector<InstallerRef> installers;
    bool failed;

    static void visit(void* context, const berth_installer* installer) noexcept {
      auto* sink = static_cast<InstallerSink*>(context);
      try {
        sink->installers.emplace_back(sink->api, *installer);
      } catch (...) {
        sink->failed = true;
      }
    }
  };

  /** Called by the SDK before start(): the section is final once registration closed. */
  void loadConfig() {
    std::string_view text = detail::toView(api()->config_json(host_.host));
    nlohmann::json parsed =
        text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text, nullptr, false);
    if (!parsed.is_object()) throw Error(500, "the plugin's configuration is not a JSON object");
    config_ = std::move(parsed);
  }

  HostRef host_;
  nlohmann::json config_ = nlohmann::json::object();
};

}  // namespace berth

#endif  // BERTH_SERVICES_HPP
