// The runtime_releases table (migrations/0001). Every statement binds its values; each change
// that touches more than one row of a project runs in one transaction that first takes the
// project's advisory lock, so a build finishing, a promote and a prune never interleave (on
// any node: the lock lives in the shared database).
#include "release_store.hpp"

#include <berth/services/runtime_releases.hpp>

#include "release_rules.hpp"

namespace berth::runtime {

namespace {

constexpr const char* kColumns =
    "id, project_id, project, status, created_at, files, bytes, cmd, runtime, region, error, "
    "kind, argv, start_env, account_id, build_sha256, build_size, build_entries, build_bytes, "
    "build_node";

constexpr const char* kLockProject =
    "SELECT pg_advisory_xact_lock(hashtextextended('berth.runtime.releases:' || $1::text, 0))";

std::string kindName(StartKind kind) {
  switch (kind) {
    case StartKind::Static:
      return "static";
    case StartKind::Php:
      return "php";
    case StartKind::Process:
      break;
  }
  return "process";
}

StartKind kindOf(std::string_view name) {
  if (name == "static") return StartKind::Static;
  if (name == "php") return StartKind::Php;
  return StartKind::Process;
}

ReleaseRecord recordAt(const berth::DbResult& r, int64_t row) {
  ReleaseRecord rec;
  rec.id = r.get<std::string>(row, 0);
  rec.project_id = r.get<std::string>(row, 1);
  rec.project = r.get<std::string>(row, 2);
  rec.status = r.get<std::string>(row, 3);
  rec.created_at = r.get<std::int64_t>(row, 4);
  rec.files = r.get<std::uint64_t>(row, 5);
  rec.bytes = r.get<std::uint64_t>(row, 6);
  rec.cmd = r.get<std::string>(row, 7);
  rec.runtime = r.get<std::optional<std::string>>(row, 8);
  rec.region = r.get<std::string>(row, 9);
  rec.error = r.get<std::optional<std::string>>(row, 10);
  rec.kind = kindOf(r.get<std::string>(row, 11));
  nlohmann::json argv = r.get<nlohmann::json>(row, 12);
  for (const auto& word : argv)
    if (word.is_string()) rec.argv.push_back(word.get<std::string>());
  nlohmann::json env = r.get<nlohmann::json>(row, 13);
  for (const auto& pair : env)
    if (pair.is_array() && pair.size() == 2 && pair[0].is_string() && pair[1].is_string())
      rec.start_env.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
  rec.account_id = r.get<std::string>(row, 14);
  if (auto sha256 = r.get<std::optional<std::string>>(row, 15)) {
    rec.packed = PackedBuild{*sha256, r.get<std::uint64_t>(row, 16), r.get<std::uint64_t>(row, 17),
                             r.get<std::uint64_t>(row, 18)};
  }
  rec.build_node = r.get<std::string>(row, 19);
  return rec;
}

std::vector<ReleaseRecord> records(const berth::DbResult& r) {
  std::vector<ReleaseRecord> out;
  out.reserve(static_cast<std::size_t>(r.rows()));
  for (int64_t i = 0; i < r.rows(); ++i) out.push_back(recordAt(r, i));
  return out;
}

std::string select(const std::string& rest) {
  return std::string("SELECT ") + kColumns + " FROM runtime.runtime_releases " + rest;
}

// The project's releases as release_rules sees them; `seq` stands in for created_at, since
// "newest" must be exact and created_at has whole seconds only.
std::vector<ReleaseRow> rowsOf(berth::Transaction& tx, const std::string& project_id) {
  auto r = tx.exec("SELECT id, status, seq FROM runtime.runtime_releases WHERE project_id = $1",
                   project_id);
  std::vector<ReleaseRow> rows;
  for (int64_t i = 0; i < r.rows(); ++i)
    rows.push_back(
        ReleaseRow{r.get<std::string>(i, 0), r.get<std::string>(i, 1), r.get<std::int64_t>(i, 2)});
  return rows;
}

berth::runtime_releases::Release releaseOf(const ReleaseRecord& r) {
  return {r.id,  r.project, r.status, r.created_at, r.files,     r.bytes,
          r.cmd, r.runtime, r.region, r.error,      std::nullopt};
}

}  // namespace

nlohmann::json releaseJson(const ReleaseRecord& release) {
  return berth::runtime_releases::toJson(releaseOf(release));
}

nlohmann::json releaseWithLogJson(const ReleaseRecord& release) {
  berth::runtime_releases::Release out = releaseOf(release);
  out.build_log = release.build_log;
  return berth::runtime_releases::toJson(out);
}

std::optional<ReleaseRecord> ReleaseStore::live(const std::string& project_id) const {
  auto r = services_.db().exec(select("WHERE project_id = $1 AND status = 'live'"), project_id);
  if (r.rows() == 0) return std::nullopt;
  return recordAt(r, 0);
}

std::map<std::string, std::string> ReleaseStore::liveIds() const {
  auto r = services_.db().exec(
      "SELECT project_id, id FROM runtime.runtime_releases WHERE status = 'live'");
  std::map<std::string, std::string> out;
  for (int64_t i = 0; i < r.rows(); ++i) out[r.get<std::string>(i, 0)] = r.get<std::string>(i, 1);
  return out;
}

ReleaseRecord ReleaseStore::insertBuilding(const NewRelease& n) const {
  try {
    auto r = services_.db().exec(
        "INSERT INTO runtime.runtime_releases (id, project_id, project, account_id, status, "
        "cmd, runtime, region, build_node, build_boot) "
        "VALUES (gen_random_uuid()::text, $1, $2, $3, 'building', $4, $5, $6, $7, $8) "
        "RETURNING " +
            std::string(kColumns),
        n.project_id, n.project, n.account_id, n.cmd, runtimeOfCommand(n.cmd), n.region,
        n.build_node, n.build_boot);
    changed(n.project_id);
    return recordAt(r, 0);
  } catch (const berth::DbError& e) {
    if (!e.isUniqueViolation()) throw;
    throw berth::Error::conflict("a release of " + n.project +
                                 " is already building; upload again when it is done");
  }
}

bool ReleaseStore::finishFailed(const std::string& release_id, const std::string& error,
                                const std::string& build_log) const {
  auto r = services_.db().exec(
      "UPDATE runtime.runtime_releases SET status = 'failed', error = $2, build_log = $3 "
      "WHERE id = $1 AND status = 'building' RETURNING project_id",
      release_id, error, build_log);
  if (r.rows() == 0) return false;
  changed(r.get<std::string>(0, 0));
  return true;
}

bool ReleaseStore::discardBuilding(const std::string& release_id) const {
  auto r = services_.db().exec(
      "DELETE FROM runtime.runtime_releases WHERE id = $1 AND status = 'building' "
      "RETURNING project_id",
      release_id);
  if (r.rows() == 0) return false;
  changed(r.get<std::string>(0, 0));
  return true;
}

bool ReleaseStore::finishLive(const std::string& release_id, const BuiltRelease& built) const {
  std::string project_id;
  bool live = services_.db().transaction([&](berth::Transaction& tx) {
    auto found = tx.exec(
        "SELECT project_id FROM runtime.runtime_releases WHERE id = $1 AND status = 'building'",
        release_id);
    if (found.rows() == 0) return false;
    project_id = found.get<std::string>(0, 0);
    tx.exec(kLockProject, project_id);
    nlohmann::json argv = built.argv;
    nlohmann::json env = nlohmann::json::array();
    for (const auto& [name, value] : built.start_env) env.push_back({name, value});
    tx.exec(
        "UPDATE runtime.runtime_releases SET status = 'ready' "
        "WHERE project_id = $1 AND status = 'live'",
        project_id);
    auto updated = tx.exec(
        "UPDATE runtime.runtime_releases SET status = 'live', files = $2, bytes = $3, cmd = $4, "
        "runtime = $5, kind = $6, argv = $7::jsonb, start_env = $8::jsonb, build_log = $9, "
        "build_sha256 = $10, build_size = $11, build_entries = $12, build_bytes = $13 "
        "WHERE id = $1 AND status = 'building'",
        release_id, static_cast<std::int64_t>(built.files), static_cast<std::int64_t>(built.bytes),
        built.cmd, built.runtime, kindName(built.kind), argv, env, built.build_log,
        built.packed.sha256, static_cast<std::int64_t>(built.packed.size),
        static_cast<std::int64_t>(built.packed.entries),
        static_cast<std::int64_t>(built.packed.bytes));
    return updated.affected() > 0;
  });
  if (!project_id.empty()) changed(project_id);
  return live;
}

ReleaseRecord ReleaseStore::promote(const std::string& project_id,
                                    const std::string& release_id) const {
  ReleaseRecord live = services_.db().transaction([&](berth::Transaction& tx) {
    tx.exec(kLockProject, project_id);
    std::vector<ReleaseRow> rows = rowsOf(tx, project_id);
    const ReleaseRow* target = nullptr;
    for (const auto& row : rows)
      if (row.id == release_id) target = &row;
    if (target == nullptr) throw berth::Error::notFound("no release called " + release_id);
    if (auto problem = promoteProblem(rows, *target))
      throw berth::Error(problem->status, problem->error);
    if (target->status != "live") {
      tx.exec(
          "UPDATE runtime.runtime_releases SET status = 'ready' "
          "WHERE project_id = $1 AND status = 'live'",
          project_id);
      tx.exec("UPDATE runtime.runtime_releases SET status = 'live' WHERE id = $1", release_id);
    }
    return recordAt(tx.exec(select("WHERE id = $1"), release_id), 0);
  });
  changed(project_id);
  return live;
}

std::vector<std::string> ReleaseStore::prune(const std::string& project_id, int keep) const {
  std::vector<std::string> pruned = services_.db().transaction([&](berth::Transaction& tx) {
    tx.exec(kLockProject, project_id);
    std::vector<std::string> ids =
        releasesToPrune(rowsOf(tx, project_id), static_cast<std::size_t>(keep));
    if (!ids.empty()) {
      nlohmann::json list = ids;
      tx.exec(
          "UPDATE runtime.runtime_releases SET status = 'pruned' WHERE project_id = $1 "
          "AND status = 'ready' AND id IN (SELECT jsonb_array_elements_text($2::jsonb))",
          project_id, list);
    }
    return ids;
  });
  if (!pruned.empty()) changed(project_id);
  return pruned;
}

std::optional<ReleaseRecord> ReleaseStore::find(const std::string& project_id,
                                                const std::string& release_id) const {
  auto r = services_.db().exec(
      std::string("SELECT ") + kColumns +
          ", build_log FROM runtime.runtime_releases WHERE project_id = $1 AND id = $2",
      project_id, release_id);
  if (r.rows() == 0) return std::nullopt;
  ReleaseRecord rec = recordAt(r, 0);
  rec.build_log = r.get<std::string>(0, 20);
  return rec;
}

std::vector<ReleaseRecord> ReleaseStore::listProject(const std::string& project_id,
                                                     int limit) const {
  return records(services_.db().exec(
      select("WHERE project_id = $1 ORDER BY seq DESC LIMIT $2::int"), project_id, limit));
}

std::vector<ReleaseRecord> ReleaseStore::listAccounts(const std::vector<std::string>& account_ids,
                                                      int limit) const {
  nlohmann::json ids = account_ids;
  return records(services_.db().exec(
      select("WHERE account_id IN (SELECT jsonb_array_elements_text($1::jsonb)) "
             "ORDER BY seq DESC LIMIT $2::int"),
      ids, limit));
}

std::map<std::string, ReleaseRecord> ReleaseStore::liveOf(
    const std::vector<std::string>& project_ids) const {
  std::map<std::string, ReleaseRecord> out;
  if (project_ids.empty()) return out;
  // A project without a live release is kept too, as nullopt (getMany gives it to what load
  // left out).
  auto kept = live_kept_.getMany(project_ids, [this](const std::vector<std::string>& missing) {
    nlohmann::json ids = missing;
    auto r = services_.db().exec(select("WHERE status = 'live' AND project_id IN "
                                        "(SELECT jsonb_array_elements_text($1::jsonb))"),
                                 ids);
    std::map<std::string, std::optional<ReleaseRecord>> read;
    for (auto& rec : records(r)) {
      std::string project_id = rec.project_id;
      read.emplace(std::move(project_id), std::move(rec));
    }
    return read;
  });
  for (auto& [project_id, live] : kept)
    if (live) out.emplace(project_id, std::move(*live));
  return out;
}

std::vector<std::pair<std::string, std::string>> ReleaseStore::failInterrupted(
    const std::string& node, const std::string& boot, std::int64_t stale_after) const {
  auto r = services_.db().exec(
      "UPDATE runtime.runtime_releases SET status = 'failed', error = CASE "
      "WHEN build_node = $1 AND build_boot <> $2 THEN "
      "'berthd stopped while this release was building; upload it again' "
      "ELSE 'the build did not finish in time on ' || build_node || "
      "' (that berthd may have stopped); upload it again' END "
      "WHERE status = 'building' AND ((build_node = $1 AND build_boot <> $2) OR "
      "(build_node <> $1 AND created_at < extract(epoch FROM now())::bigint - $3::bigint)) "
      "RETURNING project_id, id",
      node, boot, stale_after);
  std::vector<std::pair<std::string, std::string>> out;
  for (int64_t i = 0; i < r.rows(); ++i)
    out.emplace_back(r.get<std::string>(i, 0), r.get<std::string>(i, 1));
  for (const auto& [project_id, release_id] : out) changed(project_id);
  return out;
}

std::map<std::string, std::string> ReleaseStore::statuses(
    const std::vector<std::string>& release_ids) const {
  std::map<std::string, std::string> out;
  if (release_ids.empty()) return out;
  nlohmann::json ids = release_ids;
  auto r = services_.db().exec(
      "SELECT id, status FROM runtime.runtime_releases "
      "WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb))",
      ids);
  for (int64_t i = 0; i < r.rows(); ++i) out[r.get<std::string>(i, 0)] = r.get<std::string>(i, 1);
  return out;
}

std::vector<std::string> ReleaseStore::removeProject(const std::string& project_id) const {
  auto r = services_.db().exec(
      "DELETE FROM runtime.runtime_releases WHERE project_id = $1 RETURNING id", project_id);
  changed(project_id);
  std::vector<std::string> ids;
  for (int64_t i = 0; i < r.rows(); ++i) ids.push_back(r.get<std::string>(i, 0));
  return ids;
}

}  // namespace berth::runtime
