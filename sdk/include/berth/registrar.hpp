// SPDX-License-Identifier: MIT
/** @file
 *  berth::Registrar: how a plugin declares what it offers, once, inside Plugin::registerAll().
 *  Registration closes when registerAll returns; a Registrar must not be kept.
 *
 *  Every declaration the core refuses (a bad path, a duplicate name, a call after registration
 *  closed) throws berth::Error, which fails the plugin's registration with that message.
 */
#ifndef BERTH_REGISTRAR_HPP
#define BERTH_REGISTRAR_HPP

#include <berth/callbacks.hpp>
#include <berth/error.hpp>
#include <berth/host_ref.hpp>
#include <berth/http.hpp>
#include <berth/installer.hpp>
#include <berth/logger.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth {

/** How the core treats a route before the handler runs. */
struct RouteOptions {
  /** No token needed (Request::caller() is empty unless one was sent). */
  bool publicRoute = false;
  /** Content-Type must be application/json (415) and the body valid JSON (400). Implied by
   *  a non-empty `fields`. */
  bool jsonBody = false;
  /** Fields of the JSON body, checked by the core (422). */
  std::vector<Field> fields{};
  /** A raw body the edge spools to a file (Request::bodyFile()), up to maxBodyBytes. */
  bool rawBody = false;
  /** The edge's body limit for raw bodies; 0 = the JSON limit (2 MB). */
  uint64_t maxBodyBytes = 0;
  /** Served on project hosts (/_files/..., /_data/...) instead of the API host. */
  bool projectHost = false;
};

/** Bounds of an integer configuration value, inclusive. */
struct IntRange {
  int64_t min;
  int64_t max;
};

class Registrar {
 public:
  Registrar(HostRef host, detail::CallbackStore& store) : host_(host), store_(store) {}
  Registrar(const Registrar&) = delete;
  Registrar& operator=(const Registrar&) = delete;

  // ---- configuration: keys of the plugin's own section (<id>.<name> in berth.yaml) ----------
  // Unknown keys in the section stop start-up; values are read with Services::config().

  void configBool(std::string_view name, bool default_value, std::string_view description) {
    declareConfig(name, BERTH_CONFIG_BOOL, default_value, description, std::nullopt);
  }
  void configInt(std::string_view name, int64_t default_value, std::string_view description,
                 std::optional<IntRange> range = std::nullopt) {
    declareConfig(name, BERTH_CONFIG_INT, default_value, description, range);
  }
  void configString(std::string_view name, std::string_view default_value,
                    std::string_view description) {
    declareConfig(name, BERTH_CONFIG_STRING, std::string(default_value), description, std::nullopt);
  }
  void configStringList(std::string_view name, const std::vector<std::string>& default_value,
                        std::string_view description) {
    declareConfig(name, BERTH_CONFIG_STRING_LIST, default_value, description, std::nullopt);
  }
  /** A map from names to integers; std::nullopt (null) usually means "no limit". */
  void configIntMap(std::string_view name,
                    const std::map<std::string, std::optional<int64_t>>& default_value,
                    std::string_view description) {
    nlohmann::json value = nlohmann::json::object();
    for (const auto& [key, number] : default_value)
      value[key] = number ? nlohmann::json(*number) : nlohmann::json(nullptr);
    declareConfig(name, BERTH_CONFIG_INT_MAP, value, description, std::nullopt);
  }

  // ---- routes ------------------------------------------------------------------------------
  // Paths are exact, with ":name" segments and an optional final "*name" segment taking the
  // rest of the path. Two routes with the same method and path stop start-up.

  void route(Method method, std::string path, Handler handler, RouteOptions options = {}) {
    detail::RouteEntry& entry = store_.routes.emplace_back();
    entry.host = host_;
    entry.label = std::string(methodName(method)) + " " + path;
    entry.path = std::move(path);
    entry.handler = std::move(handler);
    for (const Field& field : options.fields) entry.field_names.push_back(field.name);
    for (size_t i = 0; i < options.fields.size(); ++i)
      entry.fields.push_back(berth_field{detail::toStr(entry.field_names[i]),
                                         static_cast<uint32_t>(options.fields[i].type),
                                         options.fields[i].required ? 1u : 0u});

    uint32_t flags = 0;
    if (options.publicRoute) flags |= BERTH_ROUTE_PUBLIC;
    if (options.jsonBody || !options.fields.empty()) flags |= BERTH_ROUTE_JSON_BODY;
    if (options.rawBody) flags |= BERTH_ROUTE_RAW_BODY;
    if (options.projectHost) flags |= BERTH_ROUTE_PROJECT_HOST;

    berth_route route{};
    route.struct_size = sizeof(berth_route);
    route.method = static_cast<uint32_t>(method);
    route.path = detail::toStr(entry.path);
    route.flags = flags;
    route.max_body_bytes = options.maxBodyBytes;
    route.fields = entry.fields.empty() ? nullptr : entry.fields.data();
    route.field_count = entry.fields.size();
    route.fn = &detail::routeTrampoline;
    route.user = &entry;
    check(host_.api->add_route(host_.host, &route), "route " + entry.label);
  }

  void get(std::string path, Handler handler, RouteOptions options = {}) {
    route(Method::Get, std::move(path), std::move(handler), std::move(options));
  }
  void post(std::string path, Handler handler, RouteOptions options = {}) {
    route(Method::Post, std::move(path), std::move(handler), std::move(options));
  }
  void put(std::string path, Handler handler, RouteOptions options = {}) {
    route(Method::Put, std::move(path), std::move(handler), std::move(options));
  }
  void patch(std::string path, Handler handler, RouteOptions options = {}) {
    route(Method::Patch, std::move(path), std::move(handler), std::move(options));
  }
  void del(std::string path, Handler handler, RouteOptions options = {}) {
    route(Method::Delete, std::move(path), std::move(handler), std::move(options));
  }

  // ---- migrations --------------------------------------------------------------------------
  // plugins/<id>/migrations/NNNN_name.sql, embedded by berth_add_plugin(... MIGRATIONS dir):
  //     #include "berth_migrations_<id>.inc"
  //     r.migrations(kBerthMigrations, kBerthMigrationCount);
  // Applied once each, in order, before start(), in a transaction with search_path set to the
  // plugin's schema (named after the plugin). Never edit an applied migration: add one.

  template <class MigrationSource>
  void migrations(const MigrationSource* list, unsigned count) {
    for (unsigned i = 0; i < count; ++i) migration(list[i].version, list[i].name, list[i].sql);
  }
  void migration(uint32_t version, std::string_view name, std::string_view sql) {
    check(host_.api->add_migration(host_.host, version, detail::toStr(name), detail::toStr(sql)),
          "migration " + std::to_string(version) + " " + std::string(name));
  }

  // ---- jobs, hooks, services, installers ---------------------------------------------------

  /** A job run every `period` (std::chrono::seconds(30) converts); the first run comes right
   *  after start() when runOnStart is set, else one period later. See berth/jobs.hpp. */
  void job(std::string name, std::chrono::milliseconds period, JobFn fn, bool runOnStart = false) {
    detail::JobEntry& entry = store_.jobs.emplace_back();
    entry.host = host_;
    entry.name = std::move(name);
    entry.fn = std::move(fn);
    berth_job job{};
    job.struct_size = sizeof(berth_job);
    job.name = detail::toStr(entry.name);
    job.period_ms = period.count() > 0 ? static_cast<uint64_t>(period.count()) : 0;
    job.run_on_start = runOnStart ? 1u : 0u;
    job.fn = &detail::jobTrampoline;
    job.user = &entry;
    check(host_.api->add_job(host_.host, &job), "job " + entry.name);
  }

  /** Subscribes to an event ("project.created", "project.deleting", "edge.access" ...). */
  void hook(std::string event, HookFn fn) { addHook(std::move(event), std::move(fn), {}); }
  /** The same, with the payload's JSON text as it came (callbacks.hpp, HookTextFn). */
  void hookText(std::string event, HookTextFn fn) { addHook(std::move(event), {}, std::move(fn)); }
  /** Subscribes to an event whose firer reads what its hooks answer (Services::fireForAnswers,
   *  "projects.view.v1"): fn's answer, unless null, joins theirs. */
  void hookAnswer(std::string event, HookAnswerFn fn) {
    addHook(std::move(event), {}, {}, std::move(fn));
  }

 private:
  void addHook(std::string event, HookFn fn, HookTextFn text_fn, HookAnswerFn answer_fn = {}) {
    detail::HookEntry& entry = store_.hooks.emplace_back();
    entry.host = host_;
    entry.event = std::move(event);
    entry.fn = std::move(fn);
    entry.text_fn = std::move(text_fn);
    entry.answer_fn = std::move(answer_fn);
    check(host_.api->add_hook(host_.host, detail::toStr(entry.event), &detail::hookTrampoline,
                              &entry),
          "hook on " + entry.event);
  }

 public:
  /** Offers a service to other plugins under a versioned name ("storage.blobs.v1"). */
  void service(std::string name, ServiceFn fn) {
    detail::ServiceEntry& entry = store_.services.emplace_back();
    entry.host = host_;
    entry.name = std::move(name);
    entry.fn = std::move(fn);
    check(host_.api->offer_service(host_.host, detail::toStr(entry.name),
                                   &detail::serviceTrampoline, &entry),
          "service " + entry.name);
  }

  /** Offers a service as a table of methods; an unknown method answers 404. */
  void service(std::string name, ServiceMethods methods) {
    std::string service_name = name;
    service(std::move(name), [methods = std::move(methods), service_name](
                                 std::string_view method, const nlohmann::json& request) {
      auto it = methods.find(method);
      if (it == methods.end())
        throw Error::notFound("service " + service_name + " has no method " + std::string(method));
      return it->second(request);
    });
  }

  /** A starter-app installer (berth/installer.hpp). Its slug must be unique across plugins. */
  void installer(std::shared_ptr<Installer> installer) {
    if (!installer) throw Error(500, "Registrar::installer needs an installer");
    if (host_.api->struct_size < offsetof(berth_host_api, add_app_installer) + sizeof(void*))
      throw Error(500, "this berthd is older than ABI 1.3 and runs no installers");
    detail::AppInstallerEntry& entry = store_.installers.emplace_back();
    entry.host = host_;
    entry.installer = std::move(installer);
    entry.info = entry.installer->info();
    nlohmann::json services = nlohmann::json::array();
    for (const std::string& service : entry.info.services) services.push_back(service);
    entry.requires_json = services.dump();
    entry.fields = detail::rawFields(entry.info.fields);
    berth_app_installer raw = detail::rawInstaller(entry.info, entry.fields, entry.requires_json);
    raw.fn = &detail::appInstallerTrampoline;
    raw.user = &entry;
    check(host_.api->add_app_installer(host_.host, &raw), "installer " + entry.info.slug);
  }

  /** Logging is available while registering. */
  Logger logger() const { return Logger(host_); }

  static const char* methodName(Method method) noexcept {
    switch (method) {
      case Method::Get:
        return "GET";
      case Method::Post:
        return "POST";
      case Method::Put:
        return "PUT";
      case Method::Patch:
        return "PATCH";
      case Method::Delete:
        return "DELETE";
      case Method::Head:
        return "HEAD";
      case Method::Options:
        return "OPTIONS";
      case Method::Any:
        return "ANY";
    }
    return "?";
  }

 private:
  void declareConfig(std::string_view name, uint32_t type, const nlohmann::json& default_value,
                     std::string_view description, std::optional<IntRange> range) {
    std::string default_json = detail::dumpJson(default_value);
    berth_config_key key{};
    key.struct_size = sizeof(berth_config_key);
    key.name = detail::toStr(name);
    key.type = type;
    key.default_json = detail::toStr(default_json);
    key.min = range ? range->min : 1;  // min > max: unbounded
    key.max = range ? range->max : 0;
    key.description = detail::toStr(description);
    check(host_.api->declare_config(host_.host, &key), "config key " + std::string(name));
  }

  static void check(int32_t status, const std::string& what) {
    if (status != BERTH_OK) throw Error(500, "the core refused " + what);
  }

  HostRef host_;
  detail::CallbackStore& store_;
};

}  // namespace berth

#endif  // BERTH_REGISTRAR_HPP
