-- Every berthd keeps each account's ready projects in memory for GET /projects
-- (plugin/project_lists.hpp) and LISTENs on berth_projects: a change to a project row, from any
-- node or an operator's own SQL, sends the account's id when it commits (core.notify_key_change,
-- the core's migration 3), and every node drops what it kept of that account.
CREATE TRIGGER projects_changed AFTER INSERT OR UPDATE OR DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION core.notify_key_change('berth_projects', 'account_id');
CREATE TRIGGER projects_truncated AFTER TRUNCATE ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION core.notify_key_change('berth_projects', 'account_id');
