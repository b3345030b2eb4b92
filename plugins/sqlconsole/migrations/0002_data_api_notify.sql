-- Every berthd keeps each project's data API settings in memory (plugin/data_api_grants.hpp)
-- and LISTENs on berth_data_api: a change to a key, a table's access or a function, from any
-- node or an operator's own SQL, sends the project's id when it commits, and every node drops
-- what it kept of that project. TRUNCATE names no project: '*' drops everything.
CREATE FUNCTION notify_data_api_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('berth_data_api', '*');
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('berth_data_api', OLD.project_id);
  ELSE
    PERFORM pg_notify('berth_data_api', NEW.project_id);
    IF TG_OP = 'UPDATE' AND OLD.project_id IS DISTINCT FROM NEW.project_id THEN
      PERFORM pg_notify('berth_data_api', OLD.project_id);
    END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER data_api_keys_changed AFTER INSERT OR UPDATE OR DELETE ON data_api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_data_api_change();
CREATE TRIGGER data_api_tables_changed AFTER INSERT OR UPDATE OR DELETE ON data_api_tables
  FOR EACH ROW EXECUTE FUNCTION notify_data_api_change();
CREATE TRIGGER data_api_functions_changed AFTER INSERT OR UPDATE OR DELETE ON data_api_functions
  FOR EACH ROW EXECUTE FUNCTION notify_data_api_change();
CREATE TRIGGER data_api_keys_truncated AFTER TRUNCATE ON data_api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_data_api_change();
CREATE TRIGGER data_api_tables_truncated AFTER TRUNCATE ON data_api_tables
  FOR EACH STATEMENT EXECUTE FUNCTION notify_data_api_change();
CREATE TRIGGER data_api_functions_truncated AFTER TRUNCATE ON data_api_functions
  FOR EACH STATEMENT EXECUTE FUNCTION notify_data_api_change();
