// The quotas a put must stay within (README.md, "Quotas"):
//
// - disk per account: the bytes of every blob of the account's projects, in every space (the
//   stored files and the runtime's release archives), at most storage.disk_quota_mb for the
//   account's plan;
// - files per project: at most storage.max_files_per_project blobs in the space `files`.
//
// What the checks need from other plugins (the project's account, its plan, the account's
// projects) is read before the write (PutLimits); the checks themselves run inside the
// transaction that publishes the blob, after a lock per account that every put of the account
// takes first, so two puts at once cannot both pass at the limit (see BlobStore::publish).
#pragma once
#include <berth/plugin.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace berth::storage {

struct QuotaSettings {
  // Megabytes by plan name; a plan that is absent or null has no disk quota.
  std::map<std::string, std::optional<int64_t>> disk_quota_mb;
  int64_t max_files_per_project = 10000;
};

struct PutLimits {
  std::string lock_key;  // "account:<id>", or "project:<id>" when the account is unknown
  std::string plan;
  std::optional<int64_t> disk_bytes;          // the account's quota, when its plan has one
  std::vector<std::string> account_projects;  // every project id of the account
  std::optional<int64_t> max_files;           // for a put in the space `files`
};

class Quotas {
 public:
  Quotas(const berth::Services& services, QuotaSettings settings)
      : services_(services), settings_(std::move(settings)) {}

  // Asks the directory for the project's account and the account's projects, and the core for
  // its plan. A project the directory does not know (being made or removed) has no account,
  // so only the files limit holds for it.
  PutLimits limitsFor(const std::string& project_id, const std::string& space) const;

  // Inside the publishing transaction, before anything else: the lock every put of the
  // account takes (held until the commit).
  static void lock(berth::Transaction& tx, const PutLimits& limits);
  // Inside the publishing transaction, after lock() and with the blob's current row (if any)
  // locked: 403 when storing `new_size` bytes under the key would pass a quota. `old_size` is
  // the size of the blob it replaces (nullopt: a new key). A put that does not add to what is
  // stored is always allowed.
  static void check(berth::Transaction& tx, const PutLimits& limits, const std::string& project_id,
                    const std::string& space, int64_t new_size, std::optional<int64_t> old_size);

 private:
  const berth::Services& services_;
  QuotaSettings settings_;
};

// "1 GB", "512 MB", "300 KB" when exact, else "<n> bytes".
std::string sizeText(int64_t bytes);

}  // namespace berth::storage
