#include "app_owners.hpp"

#include <nlohmann/json.hpp>

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
  }
  return node_id_;
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
  std::lock_guard lock(mutex_);
  others_[project_id] = Remembered{owner, now + kRememberOwner};
  return owner;
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
