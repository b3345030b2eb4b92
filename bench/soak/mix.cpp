// The fixed mix: weights per thousand operations. App traffic is about a third, the data
// routes a quarter; what restarts or rebuilds something (a release, a promote, a secret on
// the hot Node app, a whole project's life) is rare, as it is for a real account.
#include "soak/ops.hpp"

namespace berth::soak {

const std::vector<OpEntry>& mix() {
  static const std::vector<OpEntry> all = {
      {"static traffic", 90, opStaticTraffic},
      {"node traffic", 110, opNodeTraffic},
      {"php traffic", 90, opPhpTraffic},
      {"files", 70, opFiles},
      {"rows read", 60, opRowsRead},
      {"rows write", 50, opRowsWrite},
      {"data api read", 50, opDataApiRead},
      {"data api write", 30, opDataApiWrite},
      {"query", 50, opQuery},
      {"schema", 30, opSchema},
      {"import", 10, opImport},
      {"export", 20, opExport},
      {"projects read", 60, opProjectsRead},
      {"project patch", 10, opProjectPatch},
      {"project life", 4, opProjectLife},
      {"me", 20, opMe},
      {"tokens", 10, opTokens},
      {"teams and templates", 10, opTeamsAndTemplates},
      {"secrets", 20, opSecrets},
      {"secret restart", 1, opSecretRestart},
      {"domains", 20, opDomains},
      {"deploy", 3, opDeploy},
      {"promote", 1, opPromote},
      {"releases read", 30, opReleasesRead},
      {"schedules", 15, opSchedules},
      {"bad request", 30, opBadRequest},
  };
  return all;
}

void runOne(const Client& client, World& world, ClientState& state) {
  static const int total = [] {
    int sum = 0;
    for (const auto& op : mix()) sum += op.weight;
    return sum;
  }();
  int draw = state.pick(total);
  for (const auto& op : mix()) {
    if (draw < op.weight) {
      op.run(client, world, state);
      ++state.n;
      return;
    }
    draw -= op.weight;
  }
}

}  // namespace berth::soak
