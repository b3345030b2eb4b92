// The core's own tables. Applied migrations are never edited (their checksum is recorded): a
// change is a new version at the end of the list.
#include "db/migrator.hpp"

namespace berth::core {

std::vector<Migration> coreMigrations() {
  return {
      Migration{"core", 1, "accounts", R"sql(
CREATE TABLE core.accounts (
  id text PRIMARY KEY,
  slug text UNIQUE NOT NULL CHECK (slug ~ '^[a-z0-9]{4,12}$'),
  -- NULL for teams. Stored lower-cased so that uniqueness ignores case.
  email text UNIQUE CHECK (email = lower(email)),
  kind text NOT NULL CHECK (kind IN ('user', 'team')),
  plan text NOT NULL,
  created_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint
);

CREATE TABLE core.memberships (
  team_id text REFERENCES core.accounts (id) ON DELETE CASCADE,
  user_id text REFERENCES core.accounts (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  PRIMARY KEY (team_id, user_id)
);
-- "Which teams is this user in" and the cascade from a deleted user.
CREATE INDEX memberships_user_id_idx ON core.memberships (user_id);

CREATE TABLE core.tokens (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES core.accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  digest text UNIQUE NOT NULL,  -- SHA-256 hex of the token; the token itself is never stored
  created_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint,
  expires_at bigint NULL,
  revoked_at bigint NULL,
  last_used_at bigint NULL
);
-- A name is reusable once its token is revoked.
CREATE UNIQUE INDEX tokens_live_name_idx ON core.tokens (account_id, name)
  WHERE revoked_at IS NULL;
-- The cascade from a deleted account also reaches revoked tokens.
CREATE INDEX tokens_account_id_idx ON core.tokens (account_id);
)sql"},
      // Every berthd keeps token checks and memberships in memory (auth/auth_cache.hpp) and
      // empties that cache on this notification, so any change (admin commands, another node,
      // an operator's own SQL) reaches every node when it commits. last_used_at is not watched:
      // it changes once a minute per busy token and says nothing about access.
      Migration{"core", 2, "auth_notify", R"sql(
CREATE FUNCTION core.notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('berth_auth', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
CREATE TRIGGER accounts_changed AFTER UPDATE OR DELETE OR TRUNCATE ON core.accounts
  FOR EACH STATEMENT EXECUTE FUNCTION core.notify_auth_change();
CREATE TRIGGER memberships_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON core.memberships FOR EACH STATEMENT EXECUTE FUNCTION core.notify_auth_change();
CREATE TRIGGER tokens_changed
  AFTER UPDATE OF account_id, digest, expires_at, revoked_at OR DELETE OR TRUNCATE
  ON core.tokens FOR EACH STATEMENT EXECUTE FUNCTION core.notify_auth_change();
)sql"},
      // For plugins that keep answers by key (<berth/util/kept_answers.hpp>): a trigger
      //   AFTER INSERT OR UPDATE OR DELETE ... FOR EACH ROW
      //   EXECUTE FUNCTION core.notify_key_change('<channel>', '<key column>')
      // sends the row's key (the old one too when an update moves it) when the change commits,
      // and AFTER TRUNCATE ... FOR EACH STATEMENT sends '*'. PostgreSQL folds equal
      // notifications of one transaction into one.
      Migration{"core", 3, "notify_key_change", R"sql(
CREATE FUNCTION core.notify_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_key text;
  new_key text;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify(TG_ARGV[0], '*');
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN old_key := to_jsonb(OLD) ->> TG_ARGV[1]; END IF;
  IF TG_OP <> 'DELETE' THEN new_key := to_jsonb(NEW) ->> TG_ARGV[1]; END IF;
  IF new_key IS NOT NULL THEN PERFORM pg_notify(TG_ARGV[0], new_key); END IF;
  IF old_key IS DISTINCT FROM new_key AND old_key IS NOT NULL THEN
    PERFORM pg_notify(TG_ARGV[0], old_key);
  END IF;
  RETURN NULL;
END
$$;
)sql"},
      // Console sign-in: one-time codes (berthd account login-link) and browser sessions
      // (auth/sessions.hpp). Only SHA-256 digests are stored. A session's end, expiry change or
      // removal (also through the account's cascade) empties every node's auth cache.
      Migration{"core", 4, "sessions", R"sql(
CREATE TABLE core.signin_codes (
  digest text PRIMARY KEY,  -- SHA-256 hex of the code; the code itself is never stored
  account_id text NOT NULL REFERENCES core.accounts (id) ON DELETE CASCADE,
  created_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint,
  expires_at bigint NOT NULL,
  used_at bigint NULL
);
CREATE INDEX signin_codes_account_id_idx ON core.signin_codes (account_id);

CREATE TABLE core.sessions (
  digest text PRIMARY KEY,  -- SHA-256 hex of the cookie's value
  account_id text NOT NULL REFERENCES core.accounts (id) ON DELETE CASCADE,
  created_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint,
  last_seen_at bigint NOT NULL,
  expires_at bigint NOT NULL  -- the absolute end; the idle end is last_seen_at + idle
);
CREATE INDEX sessions_account_id_idx ON core.sessions (account_id);
CREATE INDEX sessions_expires_at_idx ON core.sessions (expires_at);
CREATE TRIGGER sessions_changed AFTER UPDATE OF account_id, digest, expires_at OR DELETE OR TRUNCATE
  ON core.sessions FOR EACH STATEMENT EXECUTE FUNCTION core.notify_auth_change();
)sql"},
      // Revocations in force on every node before the command that made them returns
      // (cluster/auth_nodes.hpp). Each auth change bumps core.auth_changes.n in its own
      // transaction and sends the new number as the berth_auth payload; the row's lock keeps
      // the numbers in commit order, so a node that has emptied its cache on change n has seen
      // every change up to n. Each serving berthd is a row of core.nodes: it heart-beats and
      // records there the last change it has applied; a revoking command waits until every
      // live node has applied its change. Only auth changes take the lock (last_used_at and
      // last_seen_at, written per request, do not fire the trigger).
      Migration{"core", 5, "auth_nodes", R"sql(
CREATE TABLE core.auth_changes (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  n bigint NOT NULL
);
INSERT INTO core.auth_changes (n) VALUES (0);

CREATE OR REPLACE FUNCTION core.notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed bigint;
BEGIN
  UPDATE core.auth_changes SET n = n + 1 RETURNING n INTO changed;
  PERFORM pg_notify('berth_auth', changed::text);
  RETURN NULL;
END
$$;

CREATE TABLE core.nodes (
  id text PRIMARY KEY,  -- random, new at each start
  host text NOT NULL,
  pid integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  applied bigint NOT NULL  -- the last core.auth_changes.n the node's cache has caught up with
);
)sql"},
      // Several nodes serve any project (cluster/live_nodes.hpp): each registers the address
      // other nodes' edges proxy project traffic to (cluster.node_address) and its labels
      // (cluster.labels). The cluster secret, made by the first node to start, marks a request
      // one node's edge forwarded to another (X-Berth-Forwarded): such a request is served
      // where it arrives, never forwarded again, and no client can forge it.
      Migration{"core", 6, "cluster_nodes", R"sql(
ALTER TABLE core.nodes
  ADD COLUMN address text NOT NULL DEFAULT '',  -- host:port of the node's project edge
  ADD COLUMN labels jsonb NOT NULL DEFAULT '{}'::jsonb;
CREATE TABLE core.cluster_secret (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  secret text NOT NULL
);
)sql"},
  };
}

}  // namespace berth::core
