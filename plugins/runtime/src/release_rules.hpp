// Which releases keep their files and which may be made live (docs/openapi.yaml, Releases):
// the newest successful release becomes live; promote makes an earlier one live again (409
// while one is building, 410 when its files are gone); the newest `keep` releases with files
// are kept, older ones become `pruned`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace berth::runtime {

struct ReleaseRow {
  std::string id;
  std::string status;  // building, live, ready, failed, pruned
  std::int64_t created_at = 0;
};

struct PromoteProblem {
  int status;  // 409 or 410
  std::string error;
};

// nullopt when `target` may be made live now. `releases` are the project's releases.
std::optional<PromoteProblem> promoteProblem(const std::vector<ReleaseRow>& releases,
                                             const ReleaseRow& target);

// Ids of releases whose files go (status becomes pruned): every `ready` one beyond the newest
// `keep` releases that have files (live and ready). The live release is never pruned, even
// when it is older (it was promoted); building and failed ones are not counted.
std::vector<std::string> releasesToPrune(const std::vector<ReleaseRow>& releases, std::size_t keep);

}  // namespace berth::runtime
