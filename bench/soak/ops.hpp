// The soak's operations, one per kind of request a client of Berth makes, and the fixed mix
// that weighs them. Each operation sends one request or a short sequence (a project made and
// removed again; a release uploaded and followed until live), every request recorded under
// its route family.
#pragma once
#include <string>
#include <vector>

#include "soak/client.hpp"
#include "soak/world.hpp"

namespace berth::soak {

using Op = void (*)(const Client&, World&, ClientState&);

struct OpEntry {
  const char* name;
  int weight;
  Op run;
};

// Every operation with its weight (mix.cpp).
const std::vector<OpEntry>& mix();
// Runs one operation drawn from the mix.
void runOne(const Client& client, World& world, ClientState& state);

// Operations (ops_account.cpp: account, projects, secrets, domains, a project's whole life,
// deliberate bad requests; ops_data.cpp: rows, /_data, SQL, import, export; ops_apps.cpp:
// stored files, releases, schedules, app traffic).
void opMe(const Client&, World&, ClientState&);
void opTokens(const Client&, World&, ClientState&);
void opTeamsAndTemplates(const Client&, World&, ClientState&);
void opProjectsRead(const Client&, World&, ClientState&);
void opProjectPatch(const Client&, World&, ClientState&);
void opProjectLife(const Client&, World&, ClientState&);
void opSecrets(const Client&, World&, ClientState&);
void opSecretRestart(const Client&, World&, ClientState&);
void opDomains(const Client&, World&, ClientState&);
void opBadRequest(const Client&, World&, ClientState&);

void opRowsRead(const Client&, World&, ClientState&);
void opRowsWrite(const Client&, World&, ClientState&);
void opDataApiRead(const Client&, World&, ClientState&);
void opDataApiWrite(const Client&, World&, ClientState&);
void opQuery(const Client&, World&, ClientState&);
void opSchema(const Client&, World&, ClientState&);
void opImport(const Client&, World&, ClientState&);
void opExport(const Client&, World&, ClientState&);

void opFiles(const Client&, World&, ClientState&);
void opDeploy(const Client&, World&, ClientState&);
void opReleasesRead(const Client&, World&, ClientState&);
void opPromote(const Client&, World&, ClientState&);
void opSchedules(const Client&, World&, ClientState&);
void opStaticTraffic(const Client&, World&, ClientState&);
void opNodeTraffic(const Client&, World&, ClientState&);
void opPhpTraffic(const Client&, World&, ClientState&);

// Uploads a release and follows it until it is no longer building; returns its id, or "" when
// it did not go live (recorded as a surprise). Holds the project's deploy lock throughout.
std::string deployAndWait(const Client& client, World& world, const std::string& project,
                          const std::string& archive);
// The release archive of a project's kind (static, Node or PHP) at `version`.
std::string archiveFor(const World& world, const std::string& project, int version);
// The marker in every answer of a project's app.
std::string markerOf(const World& world, const std::string& project);

// A visit to an app that has been idle (the waker thread): its state first, then a request.
void wake(const Client& client, World& world, const std::string& project);

}  // namespace berth::soak
