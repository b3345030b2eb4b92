// SPDX-License-Identifier: MIT
/** @file
 *  Starter-app installers. A plugin (usually of kind BERTH_KIND_TEMPLATE) implements
 *  berth::Installer and declares it with Registrar::installer(). The plugin that serves the
 *  install route runs it with Services::runInstall(); the core mediates every install: it
 *  checks the body against the installer's fields, makes an InstallContext for the project
 *  and calls the installer. No plugin calls another plugin's functions.
 *
 *  The InstallContext is the installer's only power. Everything it does to the project it
 *  does through InstallContext::call(), on the services it declared in InstallerInfo::services;
 *  the core sets the project and the caller in every such request. A template plugin's own
 *  Services::call() and control-plane database are refused.
 *
 *  THREADING: install() may run concurrently for different projects; the caller runs at most
 *  one install per project at a time.
 */
#ifndef BERTH_INSTALLER_HPP
#define BERTH_INSTALLER_HPP

#include <berth/error.hpp>
#include <berth/host_ref.hpp>
#include <berth/logger.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace berth {

/** Types of JSON body fields the core checks (422 when wrong): of a route or an installer. */
enum class FieldType : uint32_t {
  String = BERTH_FIELD_STRING,
  Bool = BERTH_FIELD_BOOL,
  Int = BERTH_FIELD_INT,
  Array = BERTH_FIELD_ARRAY,
  Object = BERTH_FIELD_OBJECT,
  Number = BERTH_FIELD_NUMBER
};

/** A field of a JSON body: a missing required field or a wrong type answers 422. */
struct Field {
  std::string name;
  FieldType type = FieldType::String;
  bool required = true;
};

/** What an installer declares once, at registration. */
struct InstallerInfo {
  std::string slug;         ///< [a-z0-9-], 1 to 40 characters: the catalogue's and the URL's
  std::string name;         ///< "n8n"
  std::string description;  ///< one sentence
  std::string version;      ///< the installer's own version ("1.0.0")
  /** The services InstallContext::call() may reach ("runtime.releases.v1", ...). When one is
   *  missing, the installer is listed as unavailable and never runs. */
  std::vector<std::string> services;
  /** The install body's fields, checked by the core before install() runs (422). */
  std::vector<Field> fields;
};

/** One install into one project, made by the core for one call of Installer::install().
 *  LIFETIME: valid only during that call; do not keep it. */
class InstallContext {
 public:
  InstallContext(const berth_host_api* api, berth_install_ctx* ctx)
      : api_(api), ctx_(ctx), info_(parseInfo(api, ctx)) {}

  /** The project as the directory describes it: id, name, account_id, host, url, ... */
  const nlohmann::json& project() const { return info_["project"]; }
  const std::string projectId() const { return project().value("id", ""); }
  const std::string projectName() const { return project().value("name", ""); }
  /** The account that asked for the install. */
  std::string caller() const { return info_.value("caller", ""); }
  std::string requestId() const { return info_.value("request_id", ""); }
  /** Where the installer's plugin installed its files (share/berth/templates/<plugin id>),
   *  the way PostgreSQL finds an extension's files in share/extension. */
  std::filesystem::path payloadDir() const { return info_.value("payload_dir", ""); }

  /** A method of a service the installer declared, on the context's behalf: the core sets
   *  "project_id" and "account_id" in the request.
   *  @throw Error with the service's status and message; 403 for an undeclared service. */
  nlohmann::json call(std::string_view service, std::string_view method,
                      const nlohmann::json& request = nlohmann::json::object()) const {
    detail::Buffer out(api_);
    std::string request_json = detail::dumpJson(request);
    int32_t status = api_->install_call(ctx_, detail::toStr(service), detail::toStr(method),
                                        detail::toStr(request_json), out.get());
    std::string what = std::string(service) + " " + std::string(method);
    if (status != BERTH_OK) throw detail::errorFromAnswer(out.view(), what + " failed");
    if (out.view().empty()) return nlohmann::json::object();
    nlohmann::json answer = nlohmann::json::parse(out.view(), nullptr, false);
    if (answer.is_discarded()) throw Error(500, what + " answered non-JSON");
    return answer;
  }

  /** A line in berthd's log, tagged with the project and the request's id. */
  void log(LogLevel level, std::string_view message) const {
    api_->install_log(ctx_, static_cast<uint32_t>(level), detail::toStr(message));
  }

 private:
  static nlohmann::json parseInfo(const berth_host_api* api, berth_install_ctx* ctx) {
    nlohmann::json info =
        nlohmann::json::parse(detail::toView(api->install_context(ctx)), nullptr, false);
    if (!info.is_object()) throw Error(500, "the core gave no install context");
    if (!info.contains("project") || !info["project"].is_object())
      info["project"] = nlohmann::json::object();
    return info;
  }

  const berth_host_api* api_;
  berth_install_ctx* ctx_;
  nlohmann::json info_;
};

/** A starter app that can be installed into a project. */
class Installer {
 public:
  virtual ~Installer() = default;
  /** Read once, at registration. */
  virtual InstallerInfo info() const = 0;
  /** Installs into context's project; `body` has passed the declared fields' checks.
   *  Safe to run again on the same project (a second run repairs or updates; say what in
   *  the installer's README). @return the answer the install route gives (JSON).
   *  @throw Error to refuse, with the status and message the caller should see. */
  virtual nlohmann::json install(InstallContext& context, const nlohmann::json& body) = 0;
};

namespace detail {

/** The ABI's views of declared fields; the Fields must outlive them. */
inline std::vector<berth_field> rawFields(const std::vector<Field>& fields) {
  std::vector<berth_field> raw;
  raw.reserve(fields.size());
  for (const Field& field : fields)
    raw.push_back(berth_field{toStr(field.name), static_cast<uint32_t>(field.type),
                              field.required ? 1u : 0u});
  return raw;
}

/** The ABI's view of an installer's declaration (fn and user left unset); `info`, `fields` and
 *  `services_json` must outlive it. */
inline berth_app_installer rawInstaller(const InstallerInfo& info,
                                        const std::vector<berth_field>& fields,
                                        const std::string& services_json) {
  berth_app_installer raw{};
  raw.struct_size = sizeof(berth_app_installer);
  raw.slug = toStr(info.slug);
  raw.name = toStr(info.name);
  raw.description = toStr(info.description);
  raw.version = toStr(info.version);
  raw.requires_json = toStr(services_json);
  raw.fields = fields.empty() ? nullptr : fields.data();
  raw.field_count = fields.size();
  return raw;
}

}  // namespace detail

/** An installer of any loaded plugin, as Services::installers() lists it. */
struct InstallerListing {
  std::string slug;
  std::string name;
  std::string description;
  std::string version;
  std::string owner;            ///< the plugin that offers it
  std::string missing_service;  ///< the first required service no plugin offers; empty: ready
  std::vector<Field> fields;    ///< the install body's fields (the core checks them again)
};

}  // namespace berth

#endif  // BERTH_INSTALLER_HPP
