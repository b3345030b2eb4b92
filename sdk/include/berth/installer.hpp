// SPDX-License-Identifier: MIT
/** @file
 *  Template installers: a plugin (usually of kind BERTH_KIND_TEMPLATE) offers starter apps
 *  that are installed into a project. It declares them with Registrar::installer(); the
 *  plugin that serves the install route finds them with Services::installers().
 *
 *  The request and the answer are JSON; their fields are agreed between the installing plugin
 *  and the installers (the projects plugin documents them). An installer refuses by throwing
 *  berth::Error, whose status and message reach the caller.
 *
 *  THREADING: an install function may run concurrently with anything else.
 */
#ifndef BERTH_INSTALLER_HPP
#define BERTH_INSTALLER_HPP

#include <berth/error.hpp>
#include <berth/host_ref.hpp>

#include <functional>
#include <string>

namespace berth {

/** Installs into a project: request JSON in, answer JSON out; throws berth::Error to refuse.
 *  An empty function makes a catalogue entry that cannot be installed. */
using InstallFn = std::function<nlohmann::json(const nlohmann::json& request)>;

/** An installer of any loaded plugin, as Services::installers() lists it.
 *  LIFETIME: usable for the life of the process (libraries are never unloaded). */
class InstallerRef {
 public:
  InstallerRef(const berth_host_api* api, const berth_installer& installer)
      : api_(api),
        slug_(detail::toView(installer.slug)),
        name_(detail::toView(installer.name)),
        description_(detail::toView(installer.description)),
        fn_(installer.fn),
        user_(installer.user) {}

  const std::string& slug() const noexcept { return slug_; }
  const std::string& name() const noexcept { return name_; }
  const std::string& description() const noexcept { return description_; }
  /** False for a catalogue entry without an installer. */
  bool installable() const noexcept { return fn_ != nullptr; }

  /** Runs the installer. @throw Error with the installer's status and message when it refuses,
   *  or 404 when this entry cannot be installed. */
  nlohmann::json install(const nlohmann::json& request) const {
    if (fn_ == nullptr) throw Error(404, "the app template " + slug_ + " cannot be installed");
    detail::Buffer out(api_);
    std::string request_json = detail::dumpJson(request);
    int32_t status = fn_(user_, detail::toStr(request_json), out.get());
    if (status != BERTH_OK)
      throw detail::errorFromAnswer(out.view(), "the installer " + slug_ + " failed");
    if (out.view().empty()) return nlohmann::json::object();
    nlohmann::json answer = nlohmann::json::parse(out.view(), nullptr, false);
    if (answer.is_discarded()) throw Error(500, "the installer " + slug_ + " answered non-JSON");
    return answer;
  }

 private:
  const berth_host_api* api_;
  std::string slug_;
  std::string name_;
  std::string description_;
  berth_install_fn fn_;
  void* user_;
};

}  // namespace berth

#endif  // BERTH_INSTALLER_HPP
