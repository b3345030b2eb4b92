// Which cache locations the loaded nginx config has, for answers converted on any thread.
#pragma once
#include <cstdint>
#include <vector>

namespace berth::core {

// The ttls with a /_berth_cache/<ttl>/ location in the config the edge loaded last (set by
// Edge after a successful reload; empty while no config with a cache is loaded).
void publishEdgeCacheTtls(std::vector<uint32_t> ttls);

// True when an answer may go through /_berth_cache/<ttl>/; otherwise it goes through
// /_berth_proxy/ uncached.
bool edgeCacheHasTtl(uint32_t ttl);

}  // namespace berth::core
