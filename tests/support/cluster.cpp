#include "support/cluster.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/eventually.hpp"

namespace berth::testing {

namespace fs = std::filesystem;

namespace {

const std::string kSecretsKey(64, 'c');  // projects.secrets_key, the same on every node

std::string credentialsFile(const std::string& dir) {
  const std::string path = dir + "/s3-credentials";
  std::ofstream(path) << "[default]\naws_access_key_id = " << S3rverProcess::kAccessKey
                      << "\naws_secret_access_key = " << S3rverProcess::kSecret << "\n";
  ::chmod(path.c_str(), 0600);
  return path;
}

// Every process whose command line or working folder names `data_dir`, and their children
// (nginx's workers): what a berthd killed -9 leaves running.
void killLeftovers(const std::string& data_dir) {
  std::map<int, int> parents;  // pid -> ppid
  std::set<int> doomed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const int pid = std::stoi(name);
    std::ifstream in(entry.path() / "cmdline");
    const std::string cmdline((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    std::error_code link_ec;
    const std::string cwd = fs::read_symlink(entry.path() / "cwd", link_ec).string();
    if (cmdline.find(data_dir) != std::string::npos || cwd.rfind(data_dir, 0) == 0)
      doomed.insert(pid);
    std::ifstream stat(entry.path() / "stat");
    const std::string text((std::istreambuf_iterator<char>(stat)),
                           std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    if (close == std::string::npos || close + 2 >= text.size()) continue;
    std::istringstream rest(text.substr(close + 2));
    std::string state;
    int ppid = 0;
    rest >> state >> ppid;
    parents[pid] = ppid;
  }
  for (int pass = 0; pass < 3; ++pass)
    for (const auto& [pid, ppid] : parents)
      if (doomed.contains(ppid)) doomed.insert(pid);
  for (int pid : doomed) ::kill(pid, SIGKILL);
}

}  // namespace

Cluster::Cluster(ClusterOptions options) : options_(std::move(options)) {
  scratch_ = makeTempDir("berth-cluster");
  store_ = std::make_unique<S3rverProcess>();
  store_->start();
  const std::string credentials = credentialsFile(scratch_);
  for (size_t i = 0; i < options_.nodes; ++i) {
    BerthdOptions o;
    o.plugins = options_.plugins;
    o.extra_yaml =
        "projects:\n  secrets_key: \"" + kSecretsKey + "\"\n  creation_burst: 100\n" +
        options_.projects_yaml + "storage:\n  backend: s3\n  s3_endpoint: " + store_->endpoint() +
        "\n  s3_bucket: " + store_->bucket() + "\n  s3_credentials_file: " + credentials +
        "\n  s3_timeout_seconds: 5\n" + options_.storage_yaml + options_.extra_yaml + "\n";
    auto node = std::make_unique<BerthdProcess>(o);
    if (i > 0) {
      // One control plane for all, in the file itself (not --set), so that the CLI run on
      // this node's configuration (BerthdProcess::admin) reaches it too.
      std::string yaml = readFile(node->configFile());
      const std::string own = "url: \"" + node->databaseUrl() + "\"";
      const size_t at = yaml.find(own);
      if (at == std::string::npos) throw std::runtime_error("no database.url in " + yaml);
      yaml.replace(at, own.size(), "url: \"" + database_url_ + "\"");
      writeFile(node->configFile(), yaml);
    }
    std::ofstream cluster(node->configFile(), std::ios::app);
    cluster << "\ncluster:\n";
    // The node's own address for project traffic: its edge, said explicitly as an operator
    // would on a machine with several addresses (without it, berthd registers its edge's).
    if (options_.node_address) cluster << "  node_address: \"127.0.0.1:" << node->port() << "\"\n";
    cluster << "  labels:\n    node: n" << i << "\n";
    if (i < options_.labels.size())
      for (const auto& [key, value] : options_.labels[i])
        cluster << "    " << key << ": \"" << value << "\"\n";
    cluster.close();
    node->start();
    if (i == 0) database_url_ = node->databaseUrl();
    nodes_.push_back(std::move(node));
    alive_.push_back(true);
    node_ids_.emplace_back();
  }
  if (options_.balancer) startBalancer();
}

Cluster::~Cluster() {
  if (balancer_.pid() > 0 && balancer_.running()) balancer_.stop(std::chrono::seconds(5));
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const std::string data_dir = nodes_[i]->dataDir();
    nodes_[i].reset();
    if (!alive_[i]) killLeftovers(data_dir);
  }
  store_.reset();
  removeTree(scratch_);
}

void Cluster::startBalancer() {
  balancer_port_ = core::freeLoopbackPort();
  const std::string dir = scratch_ + "/front";
  fs::create_directories(dir + "/tmp");
  ::chmod(dir.c_str(), 0755);
  ::chmod((dir + "/tmp").c_str(), 0777);
  std::ostringstream conf;
  conf << "worker_processes 1;\ndaemon off;\nmaster_process on;\npid " << dir
       << "/nginx.pid;\nerror_log " << dir << "/error.log warn;\n"
       << "events { worker_connections 4096; }\nhttp {\n  access_log off;\n"
       << "  client_body_temp_path " << dir << "/tmp/body;\n  proxy_temp_path " << dir
       << "/tmp/proxy;\n  fastcgi_temp_path " << dir << "/tmp/fastcgi;\n  uwsgi_temp_path " << dir
       << "/tmp/uwsgi;\n  scgi_temp_path " << dir << "/tmp/scgi;\n"
       << "  client_max_body_size 200m;\n  upstream nodes {\n";
  for (const auto& node : nodes_)
    conf << "    server 127.0.0.1:" << node->port() << " max_fails=1 fail_timeout=10s;\n";
  conf << "    keepalive 64;\n  }\n  server {\n    listen 127.0.0.1:" << balancer_port_ << ";\n"
       << "    location / {\n      proxy_pass http://nodes;\n      proxy_http_version 1.1;\n"
       << "      proxy_set_header Connection \"\";\n      proxy_set_header Host $http_host;\n"
       << "      proxy_connect_timeout 1s;\n      proxy_read_timeout 120s;\n"
       << "      proxy_buffering off;\n      proxy_request_buffering on;\n"
       << "      proxy_next_upstream error timeout;\n"
       << "      add_header X-Cluster-Node $upstream_addr always;\n    }\n  }\n}\n";
  const std::string conf_file = dir + "/nginx.conf";
  std::ofstream(conf_file) << conf.str();
  core::SpawnOptions spawn;
  spawn.output_file = dir + "/nginx.out";
  balancer_ = core::spawn({"nginx", "-p", dir, "-c", conf_file}, spawn);
  const bool up = eventually(
      [&] {
        HttpRequestSpec spec;
        spec.url = balancerUrl() + "/nonexistent-probe";
        spec.timeout_ms = 2000;
        return send(spec).status != 0 || !balancer_.running();
      },
      std::chrono::seconds(20));
  if (!up || !balancer_.running())
    throw std::runtime_error("the front nginx did not start: " + readFile(dir + "/nginx.out") +
                             readFile(dir + "/error.log"));
}

bool Cluster::kill9(size_t i) {
  auto& node = *nodes_.at(i);
  const bool sent = ::kill(node.pid(), SIGKILL) == 0;
  const bool gone = eventually([&] { return !node.running(); }, std::chrono::seconds(10));
  killLeftovers(node.dataDir());
  alive_[i] = false;
  return sent && gone;
}

HttpResult Cluster::onHost(const std::string& project, const std::string& path,
                           std::vector<std::string> headers, const std::string& method,
                           const std::string& body) const {
  return sendToHost(balancerUrl(), project + ".localhost", method, path, std::move(headers), body);
}

HttpResult Cluster::onHostVia(size_t i, const std::string& project, const std::string& path,
                              std::vector<std::string> headers, const std::string& method,
                              const std::string& body) const {
  return sendToHost(nodes_.at(i)->baseUrl(), project + ".localhost", method, path,
                    std::move(headers), body);
}

int Cluster::servedBy(const HttpResult& r) const {
  // $upstream_addr lists every node tried ("a:1, b:2"); the last one answered.
  std::string tried = r.header("x-cluster-node");
  const size_t comma = tried.rfind(", ");
  if (comma != std::string::npos) tried = tried.substr(comma + 2);
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (tried == "127.0.0.1:" + std::to_string(nodes_[i]->port())) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> Cluster::sql(const std::string& statement,
                                      const std::vector<core::Param>& params) const {
  core::Pool db(database_url_, 1, std::chrono::seconds(10));
  auto r = db.exec(statement, params);
  std::vector<std::string> out;
  for (int row = 0; row < r.rows(); ++row)
    out.push_back(r.isNull(row, 0) ? "<null>" : r.value(row, 0));
  return out;
}

std::string Cluster::nodeId(size_t i) const {
  if (!node_ids_.at(i).empty()) return node_ids_[i];
  // All nodes run on this host: the pid tells them apart.
  std::vector<std::string> ids;
  eventually([&] {
    ids = sql("SELECT id::text FROM core.nodes WHERE pid = $1",
              {std::to_string(nodes_.at(i)->pid())});
    return ids.size() == 1;
  });
  if (ids.size() == 1) node_ids_[i] = ids[0];
  return node_ids_[i];
}

int Cluster::ownerOf(const std::string& project) const {
  auto owners =
      sql("SELECT o.node_id::text FROM runtime.app_owners o JOIN projects.projects p "
          "ON p.id::text = o.project_id WHERE p.name = $1",
          {project});
  if (owners.empty()) return -1;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodeId(i) == owners[0]) return static_cast<int>(i);
  return -1;
}

std::string Cluster::createAccountWithToken(const std::string& email, const std::string& plan) {
  return nodes_.at(0)->createAccountWithToken(email, plan);
}

}  // namespace berth::testing
