// The catalogue a rows request needs, kept between requests per project and per set of tables
// (and cast types), and checked against the database's catalogue fingerprint
// (catalog_fingerprint.hpp) on every use: a changed schema is read again at once, never served
// stale. A request refused with a catalogue from the cache (a column "not there" may have been
// added since) is built again with a fresh one before the refusal is believed.
#pragma once
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "catalog.hpp"
#include "rest_sql.hpp"

namespace berth::sqlconsole {

class CatalogCache {
 public:
  // statement_timeout_ms: the setting every use puts back on the session
  // (catalog_fingerprint.hpp); read at each use, so it may be filled in after construction
  // (the plugin's start()).
  explicit CatalogCache(const int* statement_timeout_ms, size_t capacity = 4096)
      : statement_timeout_ms_(statement_timeout_ms), capacity_(capacity) {}

  struct Found {
    std::shared_ptr<const Catalog> catalog;
    bool from_cache = false;
  };

  // The scope's catalogue: the kept one when its fingerprint still matches, else read anew.
  Found get(PgSession& session, const std::string& project_id, const CatalogScope& scope);
  // The kept catalogue of the scope and the fingerprint it was read under, without asking the
  // database: the caller checks the fingerprint itself (rows_execution.hpp sends the check and
  // the statement built from it together). Null when none is kept.
  struct Kept {
    std::shared_ptr<const Catalog> catalog;
    std::string fingerprint;
  };
  std::optional<Kept> kept(const std::string& project_id, const CatalogScope& scope);
  // Read anew (and keep), whatever is kept.
  Found reload(PgSession& session, const std::string& project_id, const CatalogScope& scope);

  // build(const Catalog&) with the scope's catalogue; when it throws RestRefusal on a kept
  // catalogue, once more on a fresh one.
  template <class Build>
  auto with(PgSession& session, const std::string& project_id, const CatalogScope& scope,
            Build&& build) {
    Found found = get(session, project_id, scope);
    if (!found.from_cache) return build(*found.catalog);
    try {
      return build(*found.catalog);
    } catch (const RestRefusal&) {
      return build(*reload(session, project_id, scope).catalog);
    }
  }

  void forget(const std::string& project_id);

  int statementTimeoutMs() const { return *statement_timeout_ms_; }

 private:
  struct Entry {
    std::string project_id;
    std::string fingerprint;
    std::shared_ptr<const Catalog> catalog;
    std::list<std::string>::iterator age;
  };
  void keep(const std::string& key, Entry entry);

  const int* statement_timeout_ms_;
  size_t capacity_;
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  std::list<std::string> ages_;  // least recently used first
};

}  // namespace berth::sqlconsole
