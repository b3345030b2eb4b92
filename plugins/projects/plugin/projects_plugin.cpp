// The projects plugin: projects, regions, names, plans, teams and roles, secrets, custom
// domains and one database per project. README.md beside this folder lists every answer.
#include <berth/pg_notify.hpp>
#include <berth/plugin.hpp>

#include <atomic>
#include <fstream>

#include "context.hpp"
#include "directory_service.hpp"
#include "domain_routes.hpp"
#include "half_made.hpp"
#include "project_record.hpp"
#include "project_routes.hpp"
#include "secret_routes.hpp"
#include "vault_key.hpp"

#include "berth_migrations_projects.inc"

namespace berth::projects {

class ProjectsPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.configString("secrets_key", "",
                   "64 hex characters: the AES-256 key of secrets; empty answers 501");
    r.configString("secrets_key_file", "",
                   "a file (0600) holding the key of secrets, read when secrets_key is empty "
                   "(berthd secrets-key makes one)");
    r.configString("dns_resolver", "", "host:port of the DNS server that verifies domains");
    r.configInt("domain_claim_days", 7, "days an unverified domain claim lasts; then it is dropped",
                berth::IntRange{1, 3650});
    r.configStringList("reserved_names",
                       {"api", "www", "admin", "app", "mail", "static", "assets", "status"},
                       "names no project may take");
    r.configString("cluster_url", "",
                   "replaced by the core's database.tenants_url (no plugin holds a superuser "
                   "URL); refused when set");
    r.configInt("public_port", 0, "port in project URLs; 0: the port of server.listen",
                berth::IntRange{0, 65535});
    r.configInt("creation_burst", 8, "projects an account may create at once",
                berth::IntRange{1, 1000});
    r.configInt("creation_refill_seconds", 5, "seconds until one more project may be created",
                berth::IntRange{1, 3600});
    r.migrations(kBerthMigrations, kBerthMigrationCount);

    registerProjectRoutes(r, context_);
    registerSecretRoutes(r, context_);
    registerDomainRoutes(r, context_);
    registerDirectoryService(r, context_);
    context_.lists.listen(r);

    // Sizes are read in the background: pg_database_size walks the database's files.
    r.job("db_sizes", std::chrono::seconds(60), [this](berth::JobContext&) { refreshSizes(); });
    // Another node may have verified a domain; and a crash may have left a half-made project.
    r.job("custom_hosts", std::chrono::seconds(30),
          [this](berth::JobContext&) { publishCustomHosts(context_); });
    // A domain row changed through any node (migration 0006's NOTIFY), or the core listens
    // again after a lost connection: the custom hosts are read again within 200 ms, off the
    // core's listening thread.
    berth::listenTo(r, kDomainsChannel,
                    berth::PgNotifyCallbacks{
                        .listening = [this] { hosts_heard_ = true; },
                        .notified = [this](std::string_view) { hosts_heard_ = true; },
                        .notListening = {},
                    });
    r.job("custom_hosts_heard", std::chrono::milliseconds(200), [this](berth::JobContext&) {
      if (!hosts_heard_.exchange(false)) return;
      try {
        publishCustomHosts(context_);
      } catch (...) {
        hosts_heard_ = true;  // the next run tries again
        throw;
      }
    });
    // Unverified domain claims past projects.domain_claim_days (already ignored by every
    // route; this removes the rows).
    r.job(
        "domain_claims", std::chrono::hours(1),
        [this](berth::JobContext& job) {
          int64_t removed = removeExpiredDomainClaims(context_);
          if (removed > 0)
            job.logger().info("removed " + std::to_string(removed) + " expired domain claims");
        },
        true);
    r.job(
        "cleanup", std::chrono::minutes(5),
        [this](berth::JobContext&) { finishHalfMade(context_); }, true);
  }

  void start(berth::Services& services) override {
    context_.services = &services;
    // Refused before anything is made (the vault key), so a refused start leaves no trace.
    if (!services.configValue<std::string>("cluster_url").empty())
      throw berth::Error(
          "projects.cluster_url was replaced by the core setting database.tenants_url: the core "
          "now makes project databases and no plugin holds a superuser URL; move the URL to "
          "database.tenants_url and remove projects.cluster_url");
    Settings& s = context_.settings;
    s.apps_domain = services.coreSetting("server.apps_domain").value_or("localhost");
    s.dns_resolver = services.configValue<std::string>("dns_resolver");
    s.domain_claim_days = services.configValue<int64_t>("domain_claim_days");
    s.reserved_names = services.configValue<std::vector<std::string>>("reserved_names");
    for (auto& n : s.reserved_names)
      for (auto& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    s.creation_burst = services.configValue<int>("creation_burst");
    s.creation_refill_seconds = services.configValue<int>("creation_refill_seconds");
    s.public_port = services.configValue<int>("public_port");
    if (s.public_port == 0) {
      std::string listen = services.coreSetting("server.listen").value_or("127.0.0.1:80");
      s.public_port = std::stoi(listen.substr(listen.rfind(':') + 1));
    }

    std::string key = services.configValue<std::string>("secrets_key");
    std::string key_file = services.configValue<std::string>("secrets_key_file");
    if (!key.empty()) {
      if (!isSecretsKey(key))
        throw berth::Error("projects.secrets_key: must be 64 hexadecimal characters (32 bytes)");
      context_.secrets.emplace(key);
      context_.vault.emplace(key);
    } else {
      // A key from a file seals secrets only: database passwords stay under the vault key
      // they were sealed with, so adding the file to an install changes nothing for them.
      if (!key_file.empty()) context_.secrets.emplace(readKeyFile(key_file));
      context_.vault.emplace(loadOrCreateVaultKey(services.coreSetting("data_dir").value_or(".")));
    }
    context_.databases.emplace(services);
    context_.databases->closeOthers();
    publishCustomHosts(context_);
  }

  void stop() override { context_.lists.stop(); }

 private:
  static std::string readKeyFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw berth::Error("projects.secrets_key_file: cannot read " + path);
    std::string text;
    std::getline(in, text);
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
    if (!isSecretsKey(text))
      throw berth::Error("projects.secrets_key_file: " + path +
                         " must hold 64 hexadecimal characters (32 bytes)");
    return text;
  }

  void refreshSizes() {
    auto r = context_.db().exec(
        "SELECT id, db_name, account_id FROM projects.projects WHERE status = 'ready' "
        "AND db_name IS NOT NULL");
    for (int64_t i = 0; i < r.rows(); ++i) {
      int64_t bytes = context_.databases->sizeBytes(r.get<std::string>(i, 1));
      // Only a size that moved is written: each write drops the account's kept project list
      // on every node.
      auto written = context_.db().exec(
          "UPDATE projects.projects SET db_bytes = $2 WHERE id = $1 AND db_bytes <> $2 "
          "RETURNING 1",
          r.get<std::string>(i, 0), bytes);
      if (written.rows() > 0) context_.lists.changed(r.get<std::string>(i, 2));
    }
  }

  Context context_;
  std::atomic<bool> hosts_heard_{false};  // a domain change heard, custom hosts not yet read
};

}  // namespace berth::projects

BERTH_PLUGIN(berth::projects::ProjectsPlugin, "projects", "0.2.0",
             "projects, regions, plans, teams, secrets, domains, one database per project",
             BERTH_KIND_FEATURE)
