// A process-wide record, not a member of Edge: plugin answers are converted deep in the plugin
// bridge, far from the Edge object, and there is one edge per berthd.
#include "edge/edge_cache.hpp"

#include <algorithm>
#include <mutex>

namespace berth::core {
namespace {

std::mutex ttls_mutex;
std::vector<uint32_t> loaded_ttls;  // sorted

}  // namespace

void publishEdgeCacheTtls(std::vector<uint32_t> ttls) {
  std::sort(ttls.begin(), ttls.end());
  std::lock_guard lock(ttls_mutex);
  loaded_ttls = std::move(ttls);
}

bool edgeCacheHasTtl(uint32_t ttl) {
  std::lock_guard lock(ttls_mutex);
  return std::binary_search(loaded_ttls.begin(), loaded_ttls.end(), ttl);
}

}  // namespace berth::core
