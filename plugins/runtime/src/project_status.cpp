#include "project_status.hpp"

namespace berth::runtime {

berth::runtime_status::Status projectStatus(std::optional<AppState> process,
                                            const std::optional<LiveRelease>& live) {
  return {process && *process == AppState::Running, live};
}

nlohmann::json projectStatusJson(std::optional<AppState> process,
                                 const std::optional<LiveRelease>& live) {
  return berth::runtime_status::toJson(projectStatus(process, live));
}

}  // namespace berth::runtime
