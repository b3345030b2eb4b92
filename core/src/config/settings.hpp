// Typed configuration of berthd, read from berth.yaml with yaml-cpp.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace berth::core {

// Start-up refusal: the message already names the file and the key.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ListenAddress {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;
  std::string str() const { return host + ":" + std::to_string(port); }
};

struct DatabaseSettings {
  std::string url;  // empty: embedded cluster under data_dir/pg
  // Superuser URL of the cluster holding project databases; empty: the control plane's cluster
  // (the embedded one when url is empty). Only the core uses it (core.tenant_databases.v1).
  std::string tenants_url;
  int pool_size = 8;
  int embedded_port = 0;      // 0: pick a free loopback port on first start, then keep it
  std::string embedded_user;  // OS user that runs the embedded cluster when berthd is root
  std::string pg_bin_dir;     // empty: found from pg_config / /usr/lib/postgresql/*/bin
  int connect_timeout_seconds = 5;
};

struct LogSettings {
  std::string level = "info";   // debug | info | warn | error
  std::string format = "text";  // text | json
  std::string file;             // empty: stderr
};

struct EdgeSettings {
  std::string nginx = "nginx";  // binary
  int worker_processes = 2;
  int backend_port = 0;  // 0: a free loopback port for the Pistache backend
  int backend_threads = 4;
  std::string json_body_limit = "2m";
  std::string cache_max_size = "1g";  // disk bound of the edge cache (nginx size form)
};

struct PluginsSettings {
  std::string dir;                   // folder of libberth_<id>.so
  std::vector<std::string> enabled;  // ids to load
};

// Several berthd nodes on one control plane (cluster/live_nodes.hpp).
struct ClusterSettings {
  // cluster.node_address: where the other nodes' edges reach this node's project traffic, an
  // IP literal and port; unset: server.project_listen, else server.listen.
  std::optional<ListenAddress> node_address;
  nlohmann::json labels = nlohmann::json::object();  // cluster.labels: {name: text}
};

struct Settings {
  std::string file;                             // the file read (for error messages)
  ListenAddress listen;                         // server.listen
  std::optional<ListenAddress> project_listen;  // server.project_listen (project traffic only)
  std::string apps_domain = "localhost";
  int drain_seconds = 10;  // server.drain_seconds
  // server.public_url: the API's address as browsers see it (sign-in links, the Origin the
  // console sends); empty: http:// + server.listen. See publicUrl().
  std::string public_url;
  std::string data_dir = "var";  // absolute after loading
  DatabaseSettings database;
  LogSettings log;
  EdgeSettings edge;
  PluginsSettings plugins;
  ClusterSettings cluster;
  std::map<std::string, std::optional<int64_t>> plans;  // plan -> project limit (nullopt: none)
  std::vector<std::string> plan_order;                  // lowest first
  int job_threads = 4;
  int session_idle_minutes = 7 * 24 * 60;  // sessions.idle_minutes: sliding lifetime
  int session_max_hours = 30 * 24;         // sessions.max_hours: absolute lifetime
  // Top-level sections that are not core keys: one per plugin id, as JSON, unvalidated until
  // the plugins have declared their keys (see applyPluginKeys).
  std::map<std::string, nlohmann::json> plugin_sections;
};

// server.public_url, else "http://" + server.listen; never ends with '/'.
std::string publicUrl(const Settings& settings);

// A "key=value" override from --set, dotted key (server.listen=127.0.0.1:9000).
struct Override {
  std::string key;
  std::string value;
};

// Reads and checks the file. Unknown core keys, wrong types and bad values throw ConfigError
// naming the key and the file. Relative data_dir and plugins.dir are resolved against the
// directory berthd was started in.
Settings loadSettings(const std::string& file, const std::vector<Override>& overrides);

// The address this node registers for project traffic: cluster.node_address, else the edge's
// project listen address when the others can reach it ("" when it is a wildcard).
std::string nodeAddress(const Settings& settings);

// Parses "host:port"; throws ConfigError(what) when malformed.
ListenAddress parseListen(const std::string& value, const std::string& what);

// A plugin's declared key (mirrors berth_config_key).
struct PluginKey {
  std::string name;
  int type = 0;  // berth_config_type
  nlohmann::json default_value;
  int64_t min = 1, max = 0;
  std::string description;
};

// Checks one plugin's section against its declared keys and returns the section with defaults
// filled in. Unknown keys and wrong types throw ConfigError naming "<id>.<key>" and the file.
nlohmann::json applyPluginKeys(const Settings& settings, const std::string& plugin_id,
                               const std::vector<PluginKey>& keys);

// Sections naming no loaded plugin: refused unless a library for that id exists in
// plugins.dir (a disabled plugin keeps its settings). Throws ConfigError.
void checkUnclaimedSections(const Settings& settings, const std::vector<std::string>& loaded_ids);

}  // namespace berth::core
