#include "app_owners.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace berth::runtime {

bool AppOwners::enabled() {
  return !nodeId().empty();
}

const std::string& AppOwners::nodeId() {
  std::lock_guard lock(mutex_);
  if (!read_ && context_.services != nullptr) {
    std::string id = context_.services->coreSetting("cluster.node_id").value_or("");
    std::string proof = context_.services->coreSetting("cluster.forward_proof").value_or("");
    node_id_ = proof.empty() ? "" : id;
    read_ = true;
    if (!node_id_.empty()) forgetPredecessor();
  }
  return node_id_;
}

void AppOwners::forgetPredecessor() {
  // The berthd that ran on this data_dir before this one: its apps died with it, so its
  // claims name nothing. Without this a berthd killed and started again answered its apps'
  // requests 503 or 502 (the claim named the dead node) until the claims expired.
  if (context_.data_dir.empty()) return;
  const std::filesystem::path file = std::filesystem::path(context_.data_dir) / "runtime" / "node";
  std::string previous;
  if (std::ifstream in(file); in) std::getline(in, previous);
  try {
    if (!previous.empty() && previous != node_id_) {
      auto gone = context_.services->db().exec(
          "DELETE FROM runtime.app_owners WHERE node_id = $1 RETURNING project_id", previous);
      if (gone.rows() > 0)
        context_.logger().info("dropped " + std::to_string(gone.rows()) +
                               " app claims of the berthd that ran here before (" + previous + ")");
    }
    std::error_code ignored;
    std::filesystem::create_directories(file.parent_path(), ignored);
    const std::filesystem::path next = file.string() + ".new";
    std::ofstream(next) << node_id_ << "\n";
    std::filesystem::rename(next, file, ignored);
  } catch (const std::exception& e) {
    context_.logger().warn(std::string("the claims of the berthd that ran here before stay "
                                       "until they expire: ") +
                           e.what());
  }
}

std::string AppOwners::claim(const std::string& project_id) {
  const std::string self = nodeId();
  if (self.empty()) return "";
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    auto found = others_.find(project_id);
    if (found != others_.end() && found->second.until > now) return found->second.owner;
  }
  auto db = context_.services->db();
  std::string owner;
  // Twice at most: the owner may release between the claim and the read.
  for (int attempt = 0; attempt < 2 && owner.empty(); ++attempt) {
    auto claimed = db.exec(kClaimStatement, project_id, self, std::to_string(kClaimLasts.count()));
    if (claimed.rows() > 0) return "";
    auto current =
        db.exec("SELECT node_id FROM runtime.app_owners WHERE project_id = $1", project_id);
    if (current.rows() > 0) owner = current.get<std::string>(0, 0);
  }
  if (owner.empty() || owner == self) return "";
  // An owner no edge can reach (a berthd killed and started again is a new node; a node
  // without an address): its app is taken over here at once rather than answered 503 until
  // the claim expires.
  if (!reachable(owner)) {
    auto taken = db.exec(
        "UPDATE runtime.app_owners SET node_id = $2, renewed_at = now() "
        "WHERE project_id = $1 AND node_id = $3 RETURNING node_id",
        project_id, self, owner);
    if (taken.rows() > 0) return "";
  }
  std::lock_guard lock(mutex_);
  others_[project_id] = Remembered{owner, now + kRememberOwner};
  return owner;
}

bool AppOwners::reachable(const std::string& node_id) const {
  const std::string nodes = context_.services->coreSetting("cluster.nodes").value_or("[]");
  const auto live = nlohmann::json::parse(nodes, nullptr, false);
  if (!live.is_array()) return true;  // unsure: proxy as claimed
  for (const auto& node : live)
    if (node.is_object() && node.value("id", "") == node_id)
      return !node.value("address", "").empty();
  return false;
}

void AppOwners::renew(const std::vector<std::string>& running) {
  const std::string self = nodeId();
  if (self.empty()) return;
  auto db = context_.services->db();
  db.exec(
      "UPDATE runtime.app_owners SET renewed_at = now() WHERE node_id = $1 "
      "AND project_id IN (SELECT jsonb_array_elements_text($2::jsonb))",
      self, nlohmann::json(running).dump());
  db.exec(
      "DELETE FROM runtime.app_owners WHERE node_id = $1 "
      "AND renewed_at < now() - make_interval(secs => $2::double precision)",
      self, std::to_string(kDropUnrenewedAfter.count()));
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(others_, [&](const auto& entry) { return entry.second.until <= now; });
}

void AppOwners::release(const std::string& project_id) {
  const std::string self = nodeId();
  if (self.empty()) return;
  context_.services->db().exec(
      "DELETE FROM runtime.app_owners WHERE project_id = $1 AND node_id = $2", project_id, self);
}

void AppOwners::releaseAll() {
  const std::string self = nodeId();
  if (self.empty()) return;
  context_.services->db().exec("DELETE FROM runtime.app_owners WHERE node_id = $1", self);
}

}  // namespace berth::runtime
