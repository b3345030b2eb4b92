#include "project_record.hpp"

namespace berth::projects {

ProjectRecord projectFromRow(const berth::DbResult& r, int64_t row) {
  ProjectRecord p;
  p.id = r.get<std::string>(row, 0);
  p.name = r.get<std::string>(row, 1);
  p.label = r.get<std::string>(row, 2);
  p.account_id = r.get<std::string>(row, 3);
  p.status = r.get<std::string>(row, 4);
  p.region = r.get<std::string>(row, 5);
  p.cmd = r.get<std::string>(row, 6);
  p.ignore_dockerfile = r.get<bool>(row, 7);
  p.cache_enabled = r.get<bool>(row, 8);
  p.cache_ttl = r.get<int64_t>(row, 9);
  p.db_name = r.get<std::string>(row, 10);
  p.db_role = r.get<std::string>(row, 11);
  p.db_password_sealed = r.get<std::string>(row, 12);
  p.db_bytes = r.get<int64_t>(row, 13);
  p.created_at = r.get<int64_t>(row, 14);
  return p;
}

std::vector<ProjectRecord> projectsFrom(const berth::DbResult& result) {
  std::vector<ProjectRecord> out;
  out.reserve(static_cast<size_t>(result.rows()));
  for (int64_t i = 0; i < result.rows(); ++i) out.push_back(projectFromRow(result, i));
  return out;
}

std::optional<ProjectRecord> findReadyProject(const berth::Db& db, const std::string& name) {
  auto r = db.exec(std::string("SELECT ") + kProjectColumns +
                       " FROM projects.projects WHERE name = $1 AND status = 'ready'",
                   name);
  if (r.rows() == 0) return std::nullopt;
  return projectFromRow(r, 0);
}

std::optional<ProjectRecord> findReadyProjectById(const berth::Db& db, const std::string& id) {
  auto r = db.exec(std::string("SELECT ") + kProjectColumns +
                       " FROM projects.projects WHERE id = $1 AND status = 'ready'",
                   id);
  if (r.rows() == 0) return std::nullopt;
  return projectFromRow(r, 0);
}

std::vector<ProjectRecord> readyProjectsOf(const berth::Db& db,
                                           const std::vector<std::string>& account_ids) {
  // A text array literal of the ids, bound as one parameter.
  std::string array = "{";
  for (size_t i = 0; i < account_ids.size(); ++i) {
    if (i) array += ",";
    array += '"';
    for (char c : account_ids[i]) {
      if (c == '"' || c == '\\') array += '\\';
      array += c;
    }
    array += '"';
  }
  array += "}";
  auto r = db.exec(std::string("SELECT ") + kProjectColumns +
                       " FROM projects.projects WHERE account_id = ANY($1::text[]) "
                       "AND status = 'ready'",
                   array);
  return projectsFrom(r);
}

}  // namespace berth::projects
