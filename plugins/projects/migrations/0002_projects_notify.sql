-- Every berthd keeps each account's ready projects in memory for GET /projects
-- (plugin/project_lists.hpp) and LISTENs on berth_projects: a change to a project row, from any
-- node or an operator's own SQL, sends the account's id when it commits, and every node drops
-- what it kept of that account. TRUNCATE names no account: '*' drops everything.
CREATE FUNCTION notify_projects_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('berth_projects', '*');
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('berth_projects', OLD.account_id);
  ELSE
    PERFORM pg_notify('berth_projects', NEW.account_id);
    IF TG_OP = 'UPDATE' AND OLD.account_id IS DISTINCT FROM NEW.account_id THEN
      PERFORM pg_notify('berth_projects', OLD.account_id);
    END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER projects_changed AFTER INSERT OR UPDATE OR DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION notify_projects_change();
CREATE TRIGGER projects_truncated AFTER TRUNCATE ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION notify_projects_change();
