// SPDX-License-Identifier: MIT
/** @file
 *  Writing a Berth plugin: derive from berth::Plugin and name the class in BERTH_PLUGIN.
 *
 *      #include <berth/plugin.hpp>
 *
 *      class HelloPlugin final : public berth::Plugin {
 *       public:
 *        void registerAll(berth::Registrar& r) override {
 *          r.get("/hello", [](berth::Request, berth::Responder resp) {
 *            resp.json(200, {{"greeting", "hello"}});
 *          }, {.publicRoute = true});
 *        }
 *      };
 *      BERTH_PLUGIN(HelloPlugin, "hello", "0.1.0", "says hello", BERTH_KIND_FEATURE)
 *
 *  Lifecycle, as the core drives it (on its main thread unless said otherwise):
 *    1. Load. The core opens libberth_<id>.so and checks berth_plugin_info_v1(): ABI major
 *       equal, ABI minor not newer than the core's, id equal to the configured one. Plugins
 *       load in dependency order (the ids after `kind` in BERTH_PLUGIN).
 *    2. Register. The SDK constructs the plugin class (default constructor; keep it cheap and
 *       free of I/O) and calls registerAll(Registrar&) once. It declares config keys, routes,
 *       migrations, jobs, hooks, services and installers. Throwing berth::Error there (or any
 *       exception) refuses to load, with the message in the core's log.
 *    3. The core validates the configuration against the declared keys and applies every
 *       plugin's pending migrations.
 *    4. start(Services&), in dependency order: configuration and other plugins' services are
 *       usable from here. Throwing stops berthd from starting, with the message.
 *    5. Serving. Route handlers, hooks, services and jobs run concurrently on core threads.
 *    6. Shutdown: the core stops taking requests, drains them, asks jobs to stop and joins
 *       them, then calls stop() in reverse dependency order, then destroys the instance.
 *       Libraries are never unloaded.
 *
 *  OWNERSHIP: the core owns the plugin instance from registration on; every callback the
 *  plugin registers is stored in it (never in globals), so the instance must not be copied.
 *  Keep the plugin's state in members; avoid namespace-scope statics and singletons.
 *
 *  THREADING: everything a plugin registers can be called concurrently once start() returned;
 *  guard mutable members (std::mutex, std::atomic).
 */
#ifndef BERTH_PLUGIN_HPP
#define BERTH_PLUGIN_HPP

#include <berth/abi.h>
#include <berth/accounts.hpp>
#include <berth/callbacks.hpp>
#include <berth/db.hpp>
#include <berth/error.hpp>
#include <berth/host_ref.hpp>
#include <berth/http.hpp>
#include <berth/installer.hpp>
#include <berth/jobs.hpp>
#include <berth/logger.hpp>
#include <berth/registrar.hpp>
#include <berth/services.hpp>

#include <array>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace berth {

class Plugin {
 public:
  Plugin() = default;
  virtual ~Plugin() = default;
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  /** Declares everything the plugin offers. Called once, before start(). */
  virtual void registerAll(Registrar& registrar) = 0;

  /** Called once after migrations, in dependency order. Read configuration here. */
  virtual void start(Services& /*services*/) {}

  /** Called once at shutdown, after requests drained and jobs joined. Must not throw. */
  virtual void stop() {}

  /** What the core offers; bound from registration on, configuration read from start() on. */
  Services& services() noexcept { return services_; }
  const Services& services() const noexcept { return services_; }

  /** Shortcuts for services().logger() and services().db(). */
  Logger logger() const { return services_.logger(); }
  Db db() const { return services_.db(); }

 private:
  friend struct detail::PluginAccess;

  Services services_;
  detail::CallbackStore callbacks_;
};

namespace detail {

/** The SDK's way into a Plugin's private state. */
struct PluginAccess {
  static void bind(Plugin& plugin, HostRef host) { plugin.services_ = Services(host); }
  static CallbackStore& callbacks(Plugin& plugin) noexcept { return plugin.callbacks_; }
  static Services& services(Plugin& plugin) noexcept { return plugin.services_; }
  static void loadConfig(Plugin& plugin) { plugin.services_.loadConfig(); }
};

inline void reportNoThrow(const HostRef& host, std::string_view message) noexcept {
  if (host.api != nullptr && host.api->report_error != nullptr)
    host.api->report_error(host.host, toStr(message));
}

inline void destroyPlugin(void* instance) noexcept {
  delete static_cast<Plugin*>(instance);
}

/** berth_plugin_register_v1: constructs the plugin, hands it to the core, lets it register. */
template <class PluginClass>
int32_t registerPlugin(berth_host* host, const berth_host_api* api) noexcept {
  static_assert(std::is_base_of_v<Plugin, PluginClass>, "a plugin derives from berth::Plugin");
  HostRef ref{host, api};
  if (api == nullptr) return BERTH_ERR;
  try {
    try {
      // The loader refuses a plugin built for a newer minor; this keeps a host that did not
      // check from being called past the end of its table.
      if (api->abi_major != BERTH_ABI_MAJOR || api->struct_size < sizeof(berth_host_api)) {
        reportNoThrow(ref, "the host's ABI " + std::to_string(api->abi_major) + "." +
                               std::to_string(api->abi_minor) + " does not offer the plugin's " +
                               std::to_string(BERTH_ABI_MAJOR) + "." +
                               std::to_string(BERTH_ABI_MINOR));
        return BERTH_ERR;
      }
      std::unique_ptr<Plugin> plugin = std::make_unique<PluginClass>();
      PluginAccess::bind(*plugin, ref);
      Plugin& registered = *plugin;
      api->set_instance(host, plugin.release(), &destroyPlugin);
      Registrar registrar(ref, PluginAccess::callbacks(registered));
      registered.registerAll(registrar);
      return BERTH_OK;
    } catch (const std::exception& error) {
      reportNoThrow(ref, error.what());
    } catch (...) {
      reportNoThrow(ref, "registration threw an unknown exception");
    }
  } catch (...) {
    reportNoThrow(ref, "registration failed");
  }
  return BERTH_ERR;
}

/** berth_plugin_start_v1. */
inline int32_t startPlugin(berth_host* /*host*/, void* instance) noexcept {
  auto* plugin = static_cast<Plugin*>(instance);
  if (plugin == nullptr) return BERTH_ERR;
  const HostRef& ref = PluginAccess::services(*plugin).host();
  try {
    try {
      PluginAccess::loadConfig(*plugin);
      plugin->start(PluginAccess::services(*plugin));
      return BERTH_OK;
    } catch (const std::exception& error) {
      reportNoThrow(ref, error.what());
    } catch (...) {
      reportNoThrow(ref, "start threw an unknown exception");
    }
  } catch (...) {
    reportNoThrow(ref, "start failed");
  }
  return BERTH_ERR;
}

/** berth_plugin_stop_v1: a failure is logged; shutdown goes on. */
inline void stopPlugin(berth_host* /*host*/, void* instance) noexcept {
  auto* plugin = static_cast<Plugin*>(instance);
  if (plugin == nullptr) return;
  const HostRef& ref = PluginAccess::services(*plugin).host();
  try {
    plugin->stop();
  } catch (const std::exception& error) {
    logNoThrow(ref, BERTH_LOG_ERROR, {}, error.what());
  } catch (...) {
    logNoThrow(ref, BERTH_LOG_ERROR, {}, "stop threw an unknown exception");
  }
}

/** BERTH_PLUGIN's variadic tail is `kind, dependencies...`: always one argument at least, so
 *  the macro is valid C++17. */
template <class... Dependency>
constexpr std::array<const char*, sizeof...(Dependency) + 1> dependencyList(
    uint32_t /*kind*/, Dependency... dependencies) {
  static_assert((std::is_convertible_v<Dependency, const char*> && ...),
                "BERTH_PLUGIN: dependencies are plugin ids (string literals)");
  return {{static_cast<const char*>(dependencies)..., nullptr}};
}

template <class... Dependency>
constexpr uint32_t pluginKind(uint32_t kind, Dependency... /*dependencies*/) {
  return kind;
}

/** [a-z][a-z0-9_]*, as abi.h requires of ids. */
constexpr bool isValidPluginId(const char* id) {
  if (id == nullptr || !(id[0] >= 'a' && id[0] <= 'z')) return false;
  for (const char* c = id; *c != '\0'; ++c)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return false;
  return true;
}

}  // namespace detail
}  // namespace berth

/** Emits the four entry points of abi.h for a plugin class. Use it once, in one .cpp file.
 *
 *  @param PluginClass  a berth::Plugin with a default constructor
 *  @param plugin_id    "[a-z][a-z0-9_]*", equal to the library name libberth_<id>.so
 *  @param plugin_version  the plugin's own version, "0.1.0"
 *  @param plugin_description  one line
 *  @param ...          the kind (BERTH_KIND_FEATURE or BERTH_KIND_TEMPLATE), then the ids of
 *                      the plugins it depends on: started before it, their services usable.
 *
 *  The info block carries BERTH_ABI_MAJOR/MINOR of the headers the plugin was compiled with;
 *  the core refuses a plugin whose major differs or whose minor is newer than its own.
 */
#define BERTH_PLUGIN(PluginClass, plugin_id, plugin_version, plugin_description, ...)       \
  static_assert(std::is_base_of_v<::berth::Plugin, PluginClass>,                            \
                #PluginClass " must derive from berth::Plugin");                            \
  static_assert(::berth::detail::isValidPluginId(plugin_id),                                \
                "BERTH_PLUGIN: a plugin id matches [a-z][a-z0-9_]*");                       \
  extern "C" BERTH_EXPORT const berth_plugin_info* berth_plugin_info_v1(void) {             \
    static constexpr auto kDependencies = ::berth::detail::dependencyList(__VA_ARGS__);     \
    static constexpr berth_plugin_info kInfo = {sizeof(berth_plugin_info),                  \
                                                BERTH_ABI_MAJOR,                            \
                                                BERTH_ABI_MINOR,                            \
                                                ::berth::detail::pluginKind(__VA_ARGS__),   \
                                                plugin_id,                                  \
                                                plugin_version,                             \
                                                plugin_description,                         \
                                                kDependencies.data()};                      \
    return &kInfo;                                                                          \
  }                                                                                         \
  extern "C" BERTH_EXPORT int32_t berth_plugin_register_v1(berth_host* host,                \
                                                           const berth_host_api* api) {     \
    return ::berth::detail::registerPlugin<PluginClass>(host, api);                         \
  }                                                                                         \
  extern "C" BERTH_EXPORT int32_t berth_plugin_start_v1(berth_host* host, void* instance) { \
    return ::berth::detail::startPlugin(host, instance);                                    \
  }                                                                                         \
  extern "C" BERTH_EXPORT void berth_plugin_stop_v1(berth_host* host, void* instance) {     \
    ::berth::detail::stopPlugin(host, instance);                                            \
  }

#endif  // BERTH_PLUGIN_HPP
