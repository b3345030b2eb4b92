// The catalogue a rows request needs, kept between requests per project and per set of tables
// (and cast types), and checked against the database's catalogue fingerprint
// (catalog_fingerprint.hpp): on every use when recheck_ms is 0, else on the first use after
// recheck_ms since the last check. The check costs the database twice the by-id read it guards,
// so by default a kept catalogue is trusted for a second (sqlconsole.catalog_recheck_ms):
//  - the schema changes Berth itself runs (/sql, /query, /batch, /import, a function called
//    at /_data/rpc) drop the project's kept catalogues when they finish;
//  - a statement built from a trusted catalogue that the database refuses as naming something
//    that is not there (SQLSTATE class 42) is built again from a fresh catalogue and run once
//    more (rows_execution.cpp);
//  - what is left: for up to recheck_ms after a change made outside the API (the app's own
//    migration), `select=*` may leave out a column just added, on this node or another.
// A request refused with a catalogue from the cache (a column "not there" may have been added
// since) is built again with a fresh one before the refusal is believed.
#pragma once
#include <chrono>
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
  // recheck_ms: how long a checked catalogue is trusted without a check (0: never); read at
  // each use like statement_timeout_ms.
  CatalogCache(const int* statement_timeout_ms, const int* recheck_ms, size_t capacity = 4096)
      : statement_timeout_ms_(statement_timeout_ms), recheck_ms_(recheck_ms), capacity_(capacity) {}

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
    bool trusted = false;  // checked less than recheck_ms ago: no check needed
  };
  std::optional<Kept> kept(const std::string& project_id, const CatalogScope& scope);
  // The kept catalogue's fingerprint was just found unchanged: trusted for recheck_ms more.
  void checked(const std::string& project_id, const CatalogScope& scope);
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
  using Clock = std::chrono::steady_clock;
  struct Entry {
    std::string project_id;
    std::string fingerprint;
    std::shared_ptr<const Catalog> catalog;
    Clock::time_point checked_at;
    std::list<std::string>::iterator age;
  };
  bool trusted(const Entry& entry) const;
  void keep(const std::string& key, Entry entry);

  const int* statement_timeout_ms_;
  const int* recheck_ms_;
  size_t capacity_;
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  std::list<std::string> ages_;  // least recently used first
};

// Drops a project's kept catalogues when it goes out of scope: it guards the project's own SQL
// (which may change the schema) from after it has run, committed or not.
class ForgetCatalogsAfter {
 public:
  ForgetCatalogsAfter(CatalogCache& catalogs, std::string project_id)
      : catalogs_(catalogs), project_id_(std::move(project_id)) {}
  ~ForgetCatalogsAfter() { catalogs_.forget(project_id_); }
  ForgetCatalogsAfter(const ForgetCatalogsAfter&) = delete;
  ForgetCatalogsAfter& operator=(const ForgetCatalogsAfter&) = delete;

 private:
  CatalogCache& catalogs_;
  std::string project_id_;
};

}  // namespace berth::sqlconsole
