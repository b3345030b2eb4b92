// loadSettings: the core's keys, their defaults and their checks. Plugin sections are only
// collected here; applyPluginKeys checks them once the plugins have declared their keys.
#include "config/settings.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>

#include <libpq-fe.h>

#include "cluster/node_address.hpp"
#include "config/config_text.hpp"
#include "config/install_layout.hpp"
#include "config/yaml_source.hpp"
#include "config/yaml_to_json.hpp"
#include "config/yaml_value_reader.hpp"

namespace berth::core {
namespace {

// Without plugins.enabled every library in plugins.dir is loaded, in name order.
std::vector<std::string> pluginsInDir(const std::string& dir) {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    const std::string prefix = "libberth_", suffix = ".so";
    if (name.size() > prefix.size() + suffix.size() && name.rfind(prefix, 0) == 0 &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      ids.push_back(name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// For --set: the list keys, and the keys that cannot have keys under them.
const OverrideKeys kOverrideKeys = {.lists = {"plugins.enabled"},
                                    .leaves = {"server.listen",
                                               "server.project_listen",
                                               "server.apps_domain",
                                               "server.drain_seconds",
                                               "server.public_url",
                                               "sessions.idle_minutes",
                                               "sessions.max_hours",
                                               "data_dir",
                                               "database.url",
                                               "database.tenants_url",
                                               "database.pool_size",
                                               "database.embedded_port",
                                               "database.embedded_user",
                                               "database.pg_bin_dir",
                                               "database.connect_timeout_seconds",
                                               "log.level",
                                               "log.format",
                                               "log.file",
                                               "edge.nginx",
                                               "edge.worker_processes",
                                               "edge.backend_port",
                                               "edge.backend_threads",
                                               "edge.json_body_limit",
                                               "edge.cache_max_size",
                                               "plugins.dir",
                                               "plugins.enabled",
                                               "jobs.threads",
                                               "cluster.node_address"}};

// Why libpq cannot read a connection string; nullopt when it can (an empty one included).
// libpq quotes a URI it cannot read whole: the quote is cut out, as it may hold a password.
std::optional<std::string> connectionStringProblem(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(text.c_str(), &error);
  if (options != nullptr) {
    PQconninfoFree(options);
    return std::nullopt;
  }
  std::string problem = error != nullptr ? error : "out of memory";
  PQfreemem(error);
  const std::string shown = "(the URL)";
  for (size_t at = problem.find(text); at != std::string::npos;
       at = problem.find(text, at + shown.size()))
    problem.replace(at, text.size(), shown);
  while (!problem.empty() && (problem.back() == '\n' || problem.back() == ' ')) problem.pop_back();
  return problem;
}

std::string absolutePath(const std::string& path) {
  std::filesystem::path resolved = std::filesystem::absolute(path).lexically_normal();
  // "var/" normalises to ".../var/"; callers append their own separators.
  if (resolved.has_relative_path() && !resolved.has_filename()) resolved = resolved.parent_path();
  return resolved.string();
}

ListenAddress listenWithPort(const YamlValueReader& reader, const YAML::Node& node,
                             const std::string& key, const std::string& file) {
  ListenAddress address = parseListen(reader.text(node, key), file + ": " + key);
  if (address.port == 0) reader.fail(key, "port must be from 1 to 65535, got 0");
  return address;
}

void readServer(const YamlValueReader& reader, const YAML::Node& node, Settings& s) {
  reader.section(
      node, "server",
      {{"listen",
        [&](const YAML::Node& v) {
          s.listen = listenWithPort(reader, v, "server.listen", s.file);
        }},
       {"project_listen",
        [&](const YAML::Node& v) {
          if (reader.text(v, "server.project_listen").empty()) {
            s.project_listen.reset();
          } else {
            s.project_listen = listenWithPort(reader, v, "server.project_listen", s.file);
          }
        }},
       {"apps_domain",
        [&](const YAML::Node& v) {
          s.apps_domain = reader.text(v, "server.apps_domain");
          if (!isLowerCaseDnsName(s.apps_domain)) {
            reader.fail(
                "server.apps_domain",
                "expected a lower-case DNS name such as apps.example.com, got " + describeYaml(v));
          }
        }},
       {"drain_seconds",
        [&](const YAML::Node& v) {
          s.drain_seconds = static_cast<int>(reader.integer(v, "server.drain_seconds", 1, 300));
        }},
       {"public_url", [&](const YAML::Node& v) {
          std::string url = reader.text(v, "server.public_url");
          if (!url.empty() && url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
            reader.fail("server.public_url",
                        "expected an address such as https://api.example.com, got " + url);
          while (!url.empty() && url.back() == '/') url.pop_back();
          s.public_url = url;
        }}});
}

void readSessions(const YamlValueReader& reader, const YAML::Node& node, Settings& s) {
  reader.section(node, "sessions",
                 {{"idle_minutes",
                   [&](const YAML::Node& v) {
                     s.session_idle_minutes = static_cast<int>(
                         reader.integer(v, "sessions.idle_minutes", 1, 366 * 24 * 60));
                   }},
                  {"max_hours", [&](const YAML::Node& v) {
                     s.session_max_hours =
                         static_cast<int>(reader.integer(v, "sessions.max_hours", 1, 366 * 24));
                   }}});
}

void readDatabase(const YamlValueReader& reader, const YAML::Node& node, DatabaseSettings& db) {
  auto integer = [&](const YAML::Node& v, const std::string& key, int min, int max) {
    return static_cast<int>(reader.integer(v, "database." + key, min, max));
  };
  reader.section(
      node, "database",
      {{"url", [&](const YAML::Node& v) { db.url = reader.text(v, "database.url"); }},
       {"tenants_url",
        [&](const YAML::Node& v) {
          db.tenants_url = reader.text(v, "database.tenants_url");
          if (auto problem = connectionStringProblem(db.tenants_url))
            reader.fail("database.tenants_url",
                        "expected a PostgreSQL URL such as postgresql://berth@db.internal/postgres "
                        "(or libpq key=value text), but libpq cannot read it: " +
                            *problem);
        }},
       {"pool_size", [&](const YAML::Node& v) { db.pool_size = integer(v, "pool_size", 1, 200); }},
       {"embedded_port",
        [&](const YAML::Node& v) { db.embedded_port = integer(v, "embedded_port", 0, 65535); }},
       {"embedded_user",
        [&](const YAML::Node& v) { db.embedded_user = reader.text(v, "database.embedded_user"); }},
       {"pg_bin_dir",
        [&](const YAML::Node& v) { db.pg_bin_dir = reader.text(v, "database.pg_bin_dir"); }},
       {"connect_timeout_seconds", [&](const YAML::Node& v) {
          db.connect_timeout_seconds = integer(v, "connect_timeout_seconds", 1, 120);
        }}});
}

void readLog(const YamlValueReader& reader, const YAML::Node& node, LogSettings& log) {
  reader.section(node, "log",
                 {{"level",
                   [&](const YAML::Node& v) {
                     log.level = reader.oneOf(v, "log.level", {"debug", "info", "warn", "error"});
                   }},
                  {"format",
                   [&](const YAML::Node& v) {
                     log.format = reader.oneOf(v, "log.format", {"text", "json"});
                   }},
                  {"file", [&](const YAML::Node& v) { log.file = reader.text(v, "log.file"); }}});
}

void readEdge(const YamlValueReader& reader, const YAML::Node& node, EdgeSettings& edge) {
  auto integer = [&](const YAML::Node& v, const std::string& key, int min, int max) {
    return static_cast<int>(reader.integer(v, "edge." + key, min, max));
  };
  reader.section(
      node, "edge",
      {{"nginx",
        [&](const YAML::Node& v) {
          edge.nginx = reader.text(v, "edge.nginx");
          if (edge.nginx.empty()) reader.fail("edge.nginx", "must name the nginx binary");
        }},
       {"worker_processes",
        [&](const YAML::Node& v) {
          edge.worker_processes = integer(v, "worker_processes", 1, 64);
        }},
       {"backend_port",
        [&](const YAML::Node& v) { edge.backend_port = integer(v, "backend_port", 0, 65535); }},
       {"backend_threads",
        [&](const YAML::Node& v) { edge.backend_threads = integer(v, "backend_threads", 1, 64); }},
       {"json_body_limit",
        [&](const YAML::Node& v) {
          edge.json_body_limit = reader.text(v, "edge.json_body_limit");
          if (!isNginxSize(edge.json_body_limit)) {
            reader.fail(
                "edge.json_body_limit",
                "expected a size in nginx's form such as 512k or 2m, got " + describeYaml(v));
          }
        }},
       {"cache_max_size", [&](const YAML::Node& v) {
          edge.cache_max_size = reader.text(v, "edge.cache_max_size");
          // At least a megabyte: nginx's max_size is rounded to its cache blocks.
          if (!isNginxSize(edge.cache_max_size) || edge.cache_max_size.back() == 'k' ||
              edge.cache_max_size.back() == 'K' ||
              std::isdigit(static_cast<unsigned char>(edge.cache_max_size.back()))) {
            reader.fail("edge.cache_max_size",
                        "expected a size in megabytes or gigabytes such as 512m or 1g, got " +
                            describeYaml(v));
          }
        }}});
}

void readPlugins(const YamlValueReader& reader, const YAML::Node& node, PluginsSettings& plugins) {
  reader.section(
      node, "plugins",
      {{"dir", [&](const YAML::Node& v) { plugins.dir = reader.text(v, "plugins.dir"); }},
       {"enabled", [&](const YAML::Node& v) {
          plugins.enabled = reader.textList(v, "plugins.enabled");
          std::set<std::string> seen;
          for (const std::string& id : plugins.enabled) {
            if (!isPluginId(id)) {
              reader.fail("plugins.enabled",
                          "expected plugin ids ([a-z][a-z0-9_]*), got \"" + id + "\"");
            }
            if (!seen.insert(id).second) {
              reader.fail("plugins.enabled", "duplicate plugin id \"" + id + "\"");
            }
          }
        }}});
}

void readPlans(const YamlValueReader& reader, const YAML::Node& node, Settings& s) {
  if (!node.IsMap() || node.size() == 0) {
    reader.fail("plans",
                "expected a map of plan name to project limit (an integer, or nothing "
                "for no limit) with at least one plan, got " +
                    describeYaml(node));
  }
  s.plans.clear();
  s.plan_order.clear();
  for (const auto& entry : node) {
    const std::string name = entry.first.Scalar();
    const std::string key = "plans." + name;
    if (!isPlanName(name)) reader.fail(key, "plan names are [a-z][a-z0-9_-]*");
    std::optional<int64_t> limit;
    if (!entry.second.IsNull()) {
      limit = reader.integer(entry.second, key, 0, std::numeric_limits<int64_t>::max());
    }
    s.plans[name] = limit;
    s.plan_order.push_back(name);
  }
}

void readJobs(const YamlValueReader& reader, const YAML::Node& node, Settings& s) {
  reader.section(node, "jobs", {{"threads", [&](const YAML::Node& v) {
                                   s.job_threads =
                                       static_cast<int>(reader.integer(v, "jobs.threads", 1, 64));
                                 }}});
}

void readCluster(const YamlValueReader& reader, const YAML::Node& node, const std::string& file,
                 ClusterSettings& c) {
  reader.section(
      node, "cluster",
      {{"node_address",
        [&](const YAML::Node& v) {
          const std::string text = reader.text(v, "cluster.node_address");
          if (text.empty()) return;
          ListenAddress address = parseListen(text, file + ": cluster.node_address");
          if (!isNodeAddress(address.str()))
            reader.fail("cluster.node_address",
                        "expected an IP address and port the other nodes reach this one at, "
                        "such as 10.0.0.5:8080 or [fd00::5]:8080 (not a name, not 0.0.0.0), "
                        "got " +
                            text);
          c.node_address = address;
        }},
       {"labels", [&](const YAML::Node& v) {
          c.labels = nlohmann::json::object();
          if (v.IsNull()) return;
          if (!v.IsMap())
            reader.fail("cluster.labels",
                        "expected a map of label to text such as {region: eu-west}, got " +
                            describeYaml(v));
          for (const auto& entry : v) {
            const std::string name = entry.first.Scalar();
            if (!entry.second.IsScalar())
              reader.fail("cluster.labels." + name,
                          "expected a text, got " + describeYaml(entry.second));
            c.labels[name] = entry.second.Scalar();
          }
        }}});
}

void setDefaults(Settings& s) {
  s.plans = {{"free", 3}, {"hobby", 10}, {"pro", std::nullopt}, {"scale", std::nullopt}};
  s.plan_order = {"free", "hobby", "pro", "scale"};
}

}  // namespace

std::string nodeAddress(const Settings& settings) {
  if (settings.cluster.node_address) return settings.cluster.node_address->str();
  const ListenAddress& edge = settings.project_listen ? *settings.project_listen : settings.listen;
  return defaultNodeAddress(edge.host, edge.port);
}

std::string publicUrl(const Settings& settings) {
  return settings.public_url.empty() ? "http://" + settings.listen.str() : settings.public_url;
}

Settings loadSettings(const std::string& file, const std::vector<Override>& overrides) {
  YAML::Node root = readConfigDocument(file);
  applyOverrides(root, overrides, file, kOverrideKeys);

  Settings s;
  s.file = file;
  setDefaults(s);
  const YamlValueReader reader(file);
  bool plugins_listed = false;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    const YAML::Node& value = entry.second;
    if (key == "server") {
      readServer(reader, value, s);
    } else if (key == "data_dir") {
      s.data_dir = reader.text(value, "data_dir");
      if (s.data_dir.empty()) reader.fail("data_dir", "must not be empty");
    } else if (key == "database") {
      readDatabase(reader, value, s.database);
    } else if (key == "log") {
      readLog(reader, value, s.log);
    } else if (key == "edge") {
      readEdge(reader, value, s.edge);
    } else if (key == "plugins") {
      readPlugins(reader, value, s.plugins);
      plugins_listed = value.IsMap() && value["enabled"].IsDefined();
    } else if (key == "plans") {
      readPlans(reader, value, s);
    } else if (key == "jobs") {
      readJobs(reader, value, s);
    } else if (key == "sessions") {
      readSessions(reader, value, s);
    } else if (key == "cluster") {
      readCluster(reader, value, file, s.cluster);
    } else if (value.IsMap() || value.IsNull()) {
      // A plugin's section (null: every key of it commented out). Whether a plugin of that
      // name exists is known only after loading them: see checkUnclaimedSections.
      s.plugin_sections[key] = value.IsNull() ? nlohmann::json::object() : yamlToJson(value);
    } else {
      reader.fail(key,
                  "unknown key (core keys: server, data_dir, database, log, edge, plugins, plans, "
                  "jobs, sessions, cluster; a plugin's keys sit in a map named after its id)");
    }
  }

  s.data_dir = absolutePath(s.data_dir);
  s.plugins.dir = absolutePath(s.plugins.dir.empty() ? defaultPluginDir() : s.plugins.dir);
  if (!plugins_listed) s.plugins.enabled = pluginsInDir(s.plugins.dir);
  return s;
}

}  // namespace berth::core
