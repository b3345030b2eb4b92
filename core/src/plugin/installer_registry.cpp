#include "plugin/installer_registry.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "plugin/abi_views.hpp"
#include "plugin/service_registry.hpp"

namespace berth::core {

namespace {

bool isSlug(const std::string& slug) {
  if (slug.empty() || slug.size() > 40) return false;
  for (char c : slug)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

}  // namespace

void InstallerRegistry::refuseTaken(const std::string& slug, const std::string& owner) const {
  for (const LegacyEntry& entry : legacy_)
    if (entry.slug == slug)
      throw std::invalid_argument("installer " + slug + " is registered by both " + entry.owner +
                                  " and " + owner);
  for (const AppInstaller& entry : apps_)
    if (entry.slug == slug)
      throw std::invalid_argument("installer " + slug + " is registered by both " + entry.owner +
                                  " and " + owner);
}

void InstallerRegistry::add(const std::string& owner, const berth_installer& installer) {
  if (installer.struct_size < sizeof(berth_installer))
    throw std::invalid_argument("berth_installer is smaller than ABI v1's");
  std::string slug = copy(installer.slug);
  if (slug.empty()) throw std::invalid_argument("an installer needs a slug");
  refuseTaken(slug, owner);
  legacy_.push_back(LegacyEntry{owner, std::move(slug), copy(installer.name),
                                copy(installer.description), installer.fn, installer.user});
}

void InstallerRegistry::addApp(const std::string& owner, const berth_app_installer& installer) {
  if (installer.struct_size < sizeof(berth_app_installer))
    throw std::invalid_argument("berth_app_installer is smaller than ABI 1.3's");
  AppInstaller entry;
  entry.owner = owner;
  entry.slug = copy(installer.slug);
  if (!isSlug(entry.slug))
    throw std::invalid_argument("installer slug \"" + entry.slug +
                                "\" must be 1 to 40 of [a-z0-9-]");
  refuseTaken(entry.slug, owner);
  entry.name = copy(installer.name);
  entry.description = copy(installer.description);
  entry.version = copy(installer.version);
  if (entry.name.empty()) throw std::invalid_argument("installer " + entry.slug + " needs a name");
  nlohmann::json services =
      view(installer.requires_json).empty()
          ? nlohmann::json::array()
          : nlohmann::json::parse(view(installer.requires_json), nullptr, false);
  if (!services.is_array())
    throw std::invalid_argument("installer " + entry.slug + ": requires_json is not an array");
  for (const auto& service : services) {
    if (!service.is_string() || service.get<std::string>().empty())
      throw std::invalid_argument("installer " + entry.slug +
                                  ": requires_json holds something that is not a service name");
    entry.services.push_back(service.get<std::string>());
  }
  if (installer.field_count > 0 && installer.fields == nullptr)
    throw std::invalid_argument("installer " + entry.slug + ": field_count without fields");
  for (size_t i = 0; i < installer.field_count; ++i) {
    const berth_field& field = installer.fields[i];
    if (view(field.name).empty() || field.type > BERTH_FIELD_NUMBER)
      throw std::invalid_argument("installer " + entry.slug + ": a field without a name or type");
    entry.fields.push_back(
        FieldRule{copy(field.name), static_cast<int>(field.type), field.required != 0});
  }
  if (installer.fn == nullptr)
    throw std::invalid_argument("installer " + entry.slug + " has no install function");
  entry.fn = installer.fn;
  entry.user = installer.user;
  apps_.push_back(std::move(entry));
}

void InstallerRegistry::visit(berth_installer_visit_fn visit_fn, void* ctx) const {
  for (const LegacyEntry& entry : legacy_) {
    const berth_installer view{sizeof(berth_installer),   borrow(entry.slug), borrow(entry.name),
                               borrow(entry.description), entry.fn,           entry.user};
    visit_fn(ctx, &view);
  }
}

void InstallerRegistry::visitApps(const ServiceRegistry& services,
                                  berth_app_installer_visit_fn visit_fn, void* ctx) const {
  for (const AppInstaller& entry : apps_) {
    std::string missing;
    for (const std::string& service : entry.services)
      if (!services.has(service)) {
        missing = service;
        break;
      }
    std::vector<berth_field> fields;
    for (const FieldRule& field : entry.fields)
      fields.push_back(berth_field{borrow(field.name), static_cast<uint32_t>(field.type),
                                   field.required ? 1u : 0u});
    berth_app_installer view{};
    view.struct_size = sizeof(berth_app_installer);
    view.fields = fields.empty() ? nullptr : fields.data();
    view.field_count = fields.size();
    view.slug = borrow(entry.slug);
    view.name = borrow(entry.name);
    view.description = borrow(entry.description);
    view.version = borrow(entry.version);
    // fn and user stay unset: a listing is not a way to call another plugin's installer.
    visit_fn(ctx, &view, borrow(entry.owner), borrow(missing));
  }
}

const AppInstaller* InstallerRegistry::findApp(std::string_view slug) const {
  for (const AppInstaller& entry : apps_)
    if (entry.slug == slug) return &entry;
  return nullptr;
}

std::vector<InstallerDecl> InstallerRegistry::list() const {
  std::vector<InstallerDecl> decls;
  for (const LegacyEntry& entry : legacy_)
    decls.push_back(
        InstallerDecl{entry.owner, entry.slug, entry.name, entry.description, entry.fn != nullptr});
  for (const AppInstaller& entry : apps_)
    decls.push_back(InstallerDecl{entry.owner, entry.slug, entry.name, entry.description, true});
  return decls;
}

}  // namespace berth::core
