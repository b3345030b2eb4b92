#include "plugin/installer_registry.hpp"

#include <stdexcept>

#include "plugin/abi_views.hpp"

namespace berth::core {

void InstallerRegistry::add(const std::string& owner, const berth_installer& installer) {
  if (installer.struct_size < sizeof(berth_installer))
    throw std::invalid_argument("berth_installer is smaller than ABI v1's");
  std::string slug = copy(installer.slug);
  if (slug.empty()) throw std::invalid_argument("an installer needs a slug");
  for (const Entry& entry : entries_)
    if (entry.slug == slug)
      throw std::invalid_argument("installer " + slug + " is registered by both " + entry.owner +
                                  " and " + owner);
  entries_.push_back(Entry{owner, std::move(slug), copy(installer.name),
                           copy(installer.description), installer.fn, installer.user});
}

void InstallerRegistry::visit(berth_installer_visit_fn visit_fn, void* ctx) const {
  for (const Entry& entry : entries_) {
    const berth_installer view{sizeof(berth_installer),   borrow(entry.slug), borrow(entry.name),
                               borrow(entry.description), entry.fn,           entry.user};
    visit_fn(ctx, &view);
  }
}

std::vector<InstallerDecl> InstallerRegistry::list() const {
  std::vector<InstallerDecl> decls;
  for (const Entry& entry : entries_)
    decls.push_back(
        InstallerDecl{entry.owner, entry.slug, entry.name, entry.description, entry.fn != nullptr});
  return decls;
}

}  // namespace berth::core
