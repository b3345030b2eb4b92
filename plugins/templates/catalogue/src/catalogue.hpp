// The app-template catalogue: what users deploy most on our peers, each with a real name and
// description, joined with the installers the loaded plugins offer. An entry is installable
// when a loaded installer has its slug and every service that installer needs; an installer
// outside the catalogue (a third party's) is listed after it.
#pragma once
#include <berth/installer.hpp>

#include <optional>
#include <string>
#include <vector>

namespace berth::templates {

struct CatalogueEntry {
  std::string slug;
  std::string name;
  std::string description;
};

// The eleven entries, in the order they are listed.
const std::vector<CatalogueEntry>& catalogue();

struct ListedTemplate {
  std::string slug, name, description;
  bool installable = false;
  std::string version;        // the installer's; empty without one
  std::string owner;          // the plugin that installs it; empty without one
  std::string unavailable;    // why an installer cannot run now; empty otherwise
  std::vector<Field> fields;  // the install body's
};

std::vector<ListedTemplate> listTemplates(const std::vector<CatalogueEntry>& entries,
                                          const std::vector<InstallerListing>& installers);

// The listed template of that slug, if any.
std::optional<ListedTemplate> findTemplate(const std::vector<ListedTemplate>& listed,
                                           const std::string& slug);

}  // namespace berth::templates
