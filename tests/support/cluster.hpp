// Berth as a cluster, for the e2e tests, the tests of several nodes and the cluster benchmark:
// berthds (three by default; each with its own data_dir and edge port, its own
// `cluster.node_address`) on one PostgreSQL control plane and one s3rver store (storage.backend
// s3), behind a round-robin front nginx started here with its own temporary configuration (none
// with `balancer = false`). Everything runs on loopback and goes with the object.
//
// The balancer adds `X-Cluster-Node: <node's port>` to every answer ($upstream_addr), so a
// test can tell which node served a request. It passes a request on to the next node when
// one refuses the connection (a node killed -9), as a real front would.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/pool.hpp"
#include "support/berthd_process.hpp"
#include "support/http_client.hpp"
#include "support/s3rver_process.hpp"
#include "util/process.hpp"

namespace berth::testing {

struct ClusterOptions {
  size_t nodes = 3;
  std::vector<std::string> plugins = {"projects", "storage", "runtime"};
  // Appended to every node's berth.yaml (plugin sections). The fixture writes `storage:` and
  // `projects:` (secrets_key), `cluster:` itself: leave them out.
  std::string extra_yaml;
  std::string storage_yaml;   // more keys under `storage:` (indented two spaces)
  std::string projects_yaml;  // more keys under `projects:` (indented two spaces)
  // Node i's labels (cluster.labels) besides `node: n<i>`; nodes past the list's end get none.
  std::vector<std::map<std::string, std::string>> labels;
  // true: each node's cluster.node_address is its edge, said explicitly as an operator would on
  // a machine with several addresses; false: left out, so each registers its default.
  bool node_address = true;
  // The round-robin front nginx; without it, only the nodes' own URLs (apiVia, onHostVia) answer.
  bool balancer = true;
};

class Cluster {
 public:
  // Starts the store, the nodes (one after the other, all on node 0's database) and the
  // balancer; throws with the failing part's output.
  explicit Cluster(ClusterOptions options = {});
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  size_t size() const { return nodes_.size(); }
  BerthdProcess& node(size_t i) { return *nodes_.at(i); }
  bool alive(size_t i) const { return alive_.at(i); }
  // SIGKILL to node i, then to what it left running (its nginx and workers, its apps), as a
  // crashed machine would lose them. The balancer still lists it. Returns whether the signal was
  // sent and the node is gone.
  bool kill9(size_t i);

  std::string balancerUrl() const { return "http://127.0.0.1:" + std::to_string(balancer_port_); }
  uint16_t balancerPort() const { return balancer_port_; }
  ApiClient api(const std::string& token = "") const { return ApiClient(balancerUrl(), token); }
  ApiClient apiVia(size_t i, const std::string& token = "") const {
    return ApiClient(nodes_.at(i)->baseUrl(), token);
  }

  // A request to the project's host (<project>.localhost) through the balancer / node i.
  HttpResult onHost(const std::string& project, const std::string& path,
                    std::vector<std::string> headers = {}, const std::string& method = "GET",
                    const std::string& body = "") const;
  HttpResult onHostVia(size_t i, const std::string& project, const std::string& path,
                       std::vector<std::string> headers = {}, const std::string& method = "GET",
                       const std::string& body = "") const;
  // The node that served an answer through the balancer (its X-Cluster-Node), -1 when unknown.
  int servedBy(const HttpResult& r) const;

  // The one control-plane database.
  const std::string& databaseUrl() const { return database_url_; }
  std::vector<std::string> sql(const std::string& statement,
                               const std::vector<core::Param>& params = {}) const;
  // Node i's id in core.nodes ("" when it did not register within 20 s). Kept once known, so
  // that a node killed since (its row soon deleted by the others) is still named.
  std::string nodeId(size_t i) const;
  // The node owning the project's app (runtime.app_owners), -1 when none owns it.
  int ownerOf(const std::string& project) const;

  S3rverProcess& store() { return *store_; }
  // account create + token create on node 0 (the CLI; every node shares the accounts).
  std::string createAccountWithToken(const std::string& email, const std::string& plan = "pro");

 private:
  void startBalancer();

  ClusterOptions options_;
  std::string scratch_;
  std::unique_ptr<S3rverProcess> store_;
  std::vector<std::unique_ptr<BerthdProcess>> nodes_;
  std::vector<bool> alive_;
  mutable std::vector<std::string> node_ids_;  // nodeId's answers, "" until known
  std::string database_url_;
  uint16_t balancer_port_ = 0;
  core::Child balancer_;
};

}  // namespace berth::testing
