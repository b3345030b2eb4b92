// The n8n installer. An install, through its context only:
//   1. builds n8n's npm tree for this server once (runtime.shared_trees.v1), waiting for it and
//      saying how far it is (templates.installs.v1) while it builds;
//   2. generates N8N_ENCRYPTION_KEY once (projects.secrets.v1, only if absent);
//   3. sets the start options: the tree read-only in the sandbox, BERTH_N8N_HOME, the readiness
//      path and a start timeout for n8n's first start (runtime.apps.v1);
//   4. makes a release of start.sh with the command `sh start.sh` and waits until it is live
//      (runtime.releases.v1).
// A second install keeps the key and the tree, sets the options again and makes a new release.
// README.md beside src/ says why each setting is what it is.
#pragma once
#include <berth/installer.hpp>

#include <chrono>

namespace berth::n8n {

class N8nInstaller final : public berth::Installer {
 public:
  struct Timing {
    std::chrono::milliseconds poll{2000};          // asks how the tree's build goes
    std::chrono::seconds progress_every{15};       // tells the caller how it goes
    std::chrono::seconds tree_deadline{2 * 3600};  // gives up waiting for the tree
    int64_t release_wait_seconds = 600;            // runtime.releases.v1 wait
  };

  N8nInstaller() = default;
  explicit N8nInstaller(Timing timing) : timing_(timing) {}

  berth::InstallerInfo info() const override;
  nlohmann::json install(berth::InstallContext& context, const nlohmann::json& body) override;

 private:
  Timing timing_;
};

// The first start migrates n8n's database (about 20 to 30 s on a busy two-core machine), so a
// start may take far longer than a plain app's.
inline constexpr int kStartTimeoutSeconds = 180;
// 200 only once n8n's database is migrated, its production webhooks and REST API are mounted
// and the editor is served (README.md, "Readiness").
inline constexpr const char* kReadinessPath = "/healthz/readiness";

}  // namespace berth::n8n
