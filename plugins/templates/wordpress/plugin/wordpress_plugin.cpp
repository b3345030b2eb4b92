// The WordPress template plugin: it offers one installer and has no other power (a template
// plugin acts on projects only through the install context the core gives each install). Its
// one setting is the pin of Debian's WordPress.
#include <berth/plugin.hpp>

#include "wordpress_installer.hpp"

namespace {

class WordpressPlugin final : public berth::Plugin {
 public:
  void registerAll(berth::Registrar& r) override {
    r.configString("package_version", berth::wordpress::kPinnedPackageVersion,
                   "the version of Debian's wordpress and wordpress-theme-twentytwentythree "
                   "packages an install uses; it refuses while another one is installed");
    r.installer(installer_);
  }

  void start(berth::Services& services) override {
    installer_->setPackageVersion(services.configValue<std::string>("package_version"));
  }

 private:
  std::shared_ptr<berth::wordpress::WordpressInstaller> installer_ =
      std::make_shared<berth::wordpress::WordpressInstaller>();
};

}  // namespace

BERTH_PLUGIN(WordpressPlugin, "wordpress", "1.0.0",
             "installs WordPress, content management, into a project", BERTH_KIND_TEMPLATE)
