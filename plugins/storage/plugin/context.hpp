// What every part of the storage plugin shares once it has started.
#pragma once
#include <berth/plugin.hpp>
#include <berth/services/project_host_cache.hpp>

#include <memory>
#include <string>

#include "blob_backend.hpp"
#include "blob_store.hpp"
#include "edge_tree.hpp"
#include "mime_types.hpp"
#include "quotas.hpp"
#include "work_queue.hpp"

namespace berth::storage {

// The stored-file limit (docs/openapi.yaml, POST /projects/{name}/files/{path}: 64 MB): the
// edge refuses larger bodies.
inline constexpr uint64_t kMaxFileBytes = 64ull * 1024 * 1024;

struct Context {
  const berth::Services* services = nullptr;
  std::string data_dir;
  MimeTable mime;
  std::unique_ptr<BlobBackend> backend;
  std::unique_ptr<BlobStore> store;
  std::unique_ptr<Quotas> quotas;
  // Which project a host is, for /_files/ (by_host, kept a few seconds; the project hooks empty
  // it on this node).
  berth::ProjectHostCache hosts;
  std::unique_ptr<EdgeTree> tree;  // null when the edge cannot serve file trees
  WorkQueue work;                  // uploads: off the server threads
  int64_t started_at = 0;  // Unix seconds; objects older than this cannot be writes in flight

  berth::Logger logger() const { return services->logger(); }
};

}  // namespace berth::storage
