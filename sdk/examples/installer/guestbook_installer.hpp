// SPDX-License-Identifier: MIT
// The guestbook: the SDK's example of a starter app a third party installs into Berth
// projects (sdk/README.md, "Writing an installer", walks through it). A template plugin with
// one installer, built against the installed SDK alone.
//
// An install, through its InstallContext only:
//   1. generates GUESTBOOK_SECRET once (projects.secrets.v1 set, only_if_absent): a second
//      install keeps it, so the entries the app signed with it still verify;
//   2. makes a release of the app in its payload folder, with the install's title written
//      into it (runtime.releases.v1 create, then wait); it goes live once built, and a failed
//      one fails the install with the release's own error;
//   3. tells how far it got (templates.installs.v1 progress): the install's caller sees it in
//      the route's 202 answer and its status, and the project's log keeps it.
//
// The classes live in this header and the BERTH_PLUGIN line in guestbook_plugin.cpp, so that
// the unit tests compile them against berth::testing::FakeHost.
#pragma once

#include <berth/plugin.hpp>
#include <berth/services/projects_secrets.hpp>
#include <berth/services/runtime_releases.hpp>
#include <berth/services/templates_installs.hpp>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

namespace guestbook {

inline const std::string kSecretName = "GUESTBOOK_SECRET";
inline const std::string kStartCommand = "node server.js";

class GuestbookInstaller final : public berth::Installer {
 public:
  berth::InstallerInfo info() const override {
    return {.slug = "guestbook",
            .name = "Guestbook",
            .description = "A page where visitors leave a line, signed with a secret of its own.",
            .version = "1.0.0",
            // Every service install() calls, and no other: the core refuses the rest (403),
            // and lists the guestbook as not installable while one of them is missing.
            .services = {"projects.secrets.v1", "runtime.releases.v1", "templates.installs.v1"},
            // The body, checked by the core before install() runs (422 when wrong).
            .fields = {{"title", berth::FieldType::String, false},
                       {"rotate_secret", berth::FieldType::Bool, false}}};
  }

  nlohmann::json install(berth::InstallContext& context, const nlohmann::json& body) override {
    // The typed clients of berth/services/ call through a Services, which an installer does
    // not have: it writes each request and reads each answer with the same header's functions.
    namespace secrets = berth::projects_secrets;
    namespace releases = berth::runtime_releases;

    // What the core cannot check is the installer's to refuse, before it changes anything.
    const std::string title = body.value("title", std::string("Guestbook"));
    if (title.empty() || title.size() > 100)
      throw berth::Error::badRequest("a guestbook's title is 1 to 100 characters");

    // 1. The secret. Generated here, sent to the projects plugin, never kept or shown: the
    //    answer names it, and so does the app. With only_if_absent a second install keeps the
    //    one there (`stored` false), unless the caller asked for a new one.
    const secrets::SetRequest secret{.project_id = context.projectId(),
                                     .name = kSecretName,
                                     .value = randomHex(32),
                                     .only_if_absent = !body.value("rotate_secret", false)};
    const secrets::Stored stored = secrets::parseStored(
        context.call(secrets::kService, secrets::kSet, secrets::toJson(secret)));
    progress(context, kSecretName + (stored.stored ? " is a new secret" : " is kept"));

    // 2. The release: the app this plugin installed beside itself (the runtime copies the
    //    folder), and a settings file made for this install, which replaces the folder's.
    const std::string folder = (context.payloadDir() / "app").string();
    progress(context, "making a release of " + folder);
    const releases::CreateRequest create{
        .project_id = context.projectId(),
        .files = {{.path = "settings.json", .content = nlohmann::json{{"title", title}}.dump()}},
        .folder = folder,
        .cmd = kStartCommand};
    releases::Release release = releases::parseRelease(
        context.call(releases::kService, releases::kCreate, releases::toJson(create)),
        releases::kCreate);
    const releases::WaitRequest wait{context.projectId(), release.id, kWaitSeconds};
    release = releases::parseRelease(
        context.call(releases::kService, releases::kWait, releases::toJson(wait)), releases::kWait);
    if (release.status == releases::kFailed)
      throw berth::Error::internal("the guestbook's release failed: " +
                                   release.error.value_or("no reason given"));
    if (release.status == releases::kBuilding)
      throw berth::Error(504, "the guestbook's release " + release.id +
                                  " was still building after " + std::to_string(kWaitSeconds) +
                                  " seconds");
    progress(context, "release " + release.id + " is " + release.status);

    // 3. The answer. The install route adds the project and the template's slug.
    return {{"schedules", nlohmann::json::array()},
            {"secrets", {kSecretName}},
            {"release", {{"id", release.id}, {"status", release.status}}}};
  }

 private:
  static constexpr int64_t kWaitSeconds = 600;

  // What the install is doing, for its caller and the project's log.
  static void progress(const berth::InstallContext& context, const std::string& message) {
    berth::templates_installs::reportProgress(context, "guestbook: " + message);
  }

  // `bytes` random bytes from the kernel, as hex.
  static std::string randomHex(size_t bytes) {
    std::ifstream urandom("/dev/urandom", std::ios::binary);
    std::string raw(bytes, '\0');
    if (!urandom.read(raw.data(), static_cast<std::streamsize>(bytes)))
      throw berth::Error::internal("could not read /dev/urandom");
    static const char* const digits = "0123456789abcdef";
    std::string hex;
    for (unsigned char c : raw) {
      hex += digits[c >> 4];
      hex += digits[c & 15];
    }
    return hex;
  }
};

// A template plugin offers installers and nothing else it needs: no routes, no tables.
class GuestbookPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.installer(std::make_shared<GuestbookInstaller>());
  }
};

}  // namespace guestbook
