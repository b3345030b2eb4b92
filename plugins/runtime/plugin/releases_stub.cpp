// Placeholder parts, replaced by the releases part (release_routes.cpp, log_routes.cpp,
// status_service.cpp, release_store.cpp).
#include "parts.hpp"

namespace berth::runtime {

void registerReleases(berth::Registrar&, Context&) {}
void registerLogs(berth::Registrar&, Context&) {}
void registerStatusService(berth::Registrar&, Context&) {}
void stopReleases(Context&) {}

std::optional<ReleaseRecord> ReleaseStore::live(const std::string&) const {
  return std::nullopt;
}
std::map<std::string, std::string> ReleaseStore::liveIds() const {
  return {};
}
nlohmann::json releaseJson(const ReleaseRecord&) {
  return nlohmann::json::object();
}

}  // namespace berth::runtime
