#include "catalogue.hpp"

namespace berth::templates {

const std::vector<CatalogueEntry>& catalogue() {
  static const std::vector<CatalogueEntry> entries = {
      {"wordpress", "WordPress",
       "Content management: a website or blog with its dashboard, on the project's PostgreSQL "
       "database and file storage."},
      {"n8n", "n8n",
       "Workflow automation: connect apps and APIs with a visual editor, triggered by webhooks "
       "or schedules."},
      {"ghost", "Ghost", "A publishing platform for blogs and newsletters with paid members."},
      {"umami", "Umami", "Privacy-friendly website analytics without cookies."},
      {"formbricks", "Formbricks", "Forms and surveys for websites and apps."},
      {"directus", "Directus", "A headless CMS and data studio over a SQL database."},
      {"uptime-kuma", "Uptime Kuma", "Uptime monitoring with status pages and alerts."},
      {"nocodb", "NocoDB", "A spreadsheet interface over a database: Airtable, self-hosted."},
      {"gitea", "Gitea", "Lightweight Git hosting with issues, pull requests and CI."},
      {"listmonk", "listmonk", "Newsletters and mailing lists with subscriber management."},
      {"metabase", "Metabase", "Dashboards and questions over your data, for the whole team."},
  };
  return entries;
}

namespace {

ListedTemplate withInstaller(ListedTemplate t, const InstallerListing& installer) {
  t.version = installer.version;
  t.owner = installer.owner;
  t.fields = installer.fields;
  t.installable = installer.missing_service.empty();
  if (!t.installable)
    t.unavailable =
        "needs the service " + installer.missing_service + ", which no loaded plugin offers";
  return t;
}

ListedTemplate named(const std::string& slug, const std::string& name,
                     const std::string& description) {
  ListedTemplate t;
  t.slug = slug;
  t.name = name;
  t.description = description;
  return t;
}

}  // namespace

std::vector<ListedTemplate> listTemplates(const std::vector<CatalogueEntry>& entries,
                                          const std::vector<InstallerListing>& installers) {
  std::vector<ListedTemplate> listed;
  for (const CatalogueEntry& entry : entries) {
    ListedTemplate t = named(entry.slug, entry.name, entry.description);
    for (const InstallerListing& installer : installers)
      if (installer.slug == entry.slug) t = withInstaller(std::move(t), installer);
    listed.push_back(std::move(t));
  }
  for (const InstallerListing& installer : installers) {
    bool in_catalogue = false;
    for (const CatalogueEntry& entry : entries) in_catalogue |= entry.slug == installer.slug;
    if (!in_catalogue)
      listed.push_back(
          withInstaller(named(installer.slug, installer.name, installer.description), installer));
  }
  return listed;
}

std::optional<ListedTemplate> findTemplate(const std::vector<ListedTemplate>& listed,
                                           const std::string& slug) {
  for (const ListedTemplate& t : listed)
    if (t.slug == slug) return t;
  return std::nullopt;
}

}  // namespace berth::templates
