-- MySQL-emulating functions for translated WordPress statements (Berth\Pg\Translator).
-- Statements are separated by lines holding only "---". Every function is named
-- berth_mysql_<name> and lives in the connection's current schema (the project's own).
-- Collations: berth_mysql_ci compares like MySQL's utf8mb4_unicode_ci (case- and
-- accent-insensitive, nondeterministic: =, IN, ORDER BY, unique keys, indexes);
-- berth_mysql_like is a deterministic ICU collation that ILIKE and ~* run under, since
-- PostgreSQL refuses pattern matching on nondeterministic collations.
DO $$ BEGIN
  CREATE COLLATION IF NOT EXISTS berth_mysql_ci (provider = icu, locale = 'und-u-ks-level1', deterministic = false);
  CREATE COLLATION IF NOT EXISTS berth_mysql_like (provider = icu, locale = 'und');
END $$
---
-- MySQL's string to number: the longest numeric prefix, 0 when there is none ('12abc' = 12).
CREATE OR REPLACE FUNCTION berth_mysql_to_number(v text) RETURNS double precision
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT COALESCE(substring(v COLLATE "C" from '^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?')::double precision, 0)
$$
---
-- CAST(text AS SIGNED): the integer prefix, 0 when there is none.
CREATE OR REPLACE FUNCTION berth_mysql_to_signed(v text) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT COALESCE(substring(v COLLATE "C" from '^\s*[-+]?\d{1,18}')::bigint, 0)
$$
---
-- A text as DATETIME: zero dates are -infinity, what is not a date is NULL (MySQL's answer).
CREATE OR REPLACE FUNCTION berth_mysql_to_datetime(v text) RETURNS timestamp(0)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF v COLLATE "C" ~ '^\s*0000-00-00' THEN
    RETURN '-infinity';
  END IF;
  RETURN v::timestamp(0);
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$
---
CREATE OR REPLACE FUNCTION berth_mysql_to_date(v text) RETURNS date
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF v COLLATE "C" ~ '^\s*0000-00-00' THEN
    RETURN '-infinity';
  END IF;
  RETURN v::date;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$
---
-- YEAR(), MONTH() ... of a datetime; a zero date gives 0 as in MySQL.
CREATE OR REPLACE FUNCTION berth_mysql_part(field text, d timestamp) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN isfinite(d) THEN date_part(field, d)::integer ELSE 0 END
$$
---
-- MySQL's WEEK(date, mode), modes 0 to 7 (its calc_week).
CREATE OR REPLACE FUNCTION berth_mysql_week(d timestamp, mode integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  behaviour integer := mode & 7;
  monday_first boolean;
  week_year boolean;
  first_weekday boolean;
  y integer;
  daynr integer;
  first_daynr integer;
  weekday integer;
  days integer;
BEGIN
  IF NOT isfinite(d) THEN
    RETURN 0;
  END IF;
  IF behaviour & 1 = 0 THEN
    behaviour := behaviour # 4;
  END IF;
  monday_first := behaviour & 1 <> 0;
  week_year := behaviour & 2 <> 0;
  first_weekday := behaviour & 4 <> 0;
  y := extract(year FROM d)::integer;
  daynr := (d::date - DATE '0001-01-01') + 366;
  first_daynr := (make_date(y, 1, 1) - DATE '0001-01-01') + 366;
  weekday := (first_daynr + 5 + CASE WHEN monday_first THEN 0 ELSE 1 END) % 7;
  IF extract(month FROM d) = 1 AND extract(day FROM d) <= 7 - weekday THEN
    IF NOT week_year AND ((first_weekday AND weekday <> 0) OR (NOT first_weekday AND weekday >= 4)) THEN
      RETURN 0;
    END IF;
    week_year := true;
    y := y - 1;
    days := make_date(y + 1, 1, 1) - make_date(y, 1, 1);
    first_daynr := first_daynr - days;
    weekday := (weekday + 53 * 7 - days) % 7;
  END IF;
  IF (first_weekday AND weekday <> 0) OR (NOT first_weekday AND weekday >= 4) THEN
    days := daynr - (first_daynr + (7 - weekday));
  ELSE
    days := daynr - (first_daynr - weekday);
  END IF;
  IF week_year AND days >= 52 * 7 THEN
    weekday := (weekday + (make_date(y + 1, 1, 1) - make_date(y, 1, 1))) % 7;
    IF (NOT first_weekday AND weekday < 4) OR (first_weekday AND weekday = 0) THEN
      RETURN 1;
    END IF;
  END IF;
  RETURN days / 7 + 1;
END
$$
---
-- SUBSTRING(s, pos, len) with MySQL's positions: negative counts from the end, 0 gives ''.
CREATE OR REPLACE FUNCTION berth_mysql_substring(s text, pos bigint, len bigint DEFAULT NULL) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN s IS NULL OR pos IS NULL THEN NULL
    WHEN pos = 0 OR -pos > char_length(s) THEN ''
    WHEN len IS NULL THEN substr(s, CASE WHEN pos > 0 THEN pos ELSE char_length(s) + pos + 1 END::integer)
    WHEN len <= 0 THEN ''
    ELSE substr(s, CASE WHEN pos > 0 THEN pos ELSE char_length(s) + pos + 1 END::integer, len::integer)
  END
$$
---
CREATE OR REPLACE FUNCTION berth_mysql_substring_index(s text, delim text, n bigint) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE
    WHEN n = 0 OR delim = '' THEN ''
    WHEN n > 0 THEN array_to_string((string_to_array(s COLLATE "C", delim COLLATE "C"))[1:n], delim)
    ELSE array_to_string((string_to_array(s COLLATE "C", delim COLLATE "C"))[
      greatest(array_length(string_to_array(s COLLATE "C", delim COLLATE "C"), 1) + n + 1, 1):], delim)
  END
$$
---
CREATE OR REPLACE FUNCTION berth_mysql_find_in_set(s text, list text) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT COALESCE(array_position(string_to_array(list COLLATE "C", ','), s COLLATE "C"), 0)
$$
---
-- MySQL moves its auto-increment counter past an explicitly inserted id; an identity does
-- not, so explicit ids move it here before the insert.
CREATE OR REPLACE FUNCTION berth_mysql_bump_identity(tbl text, col text, v bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  seq text := pg_get_serial_sequence(tbl, col);
  last bigint;
  called boolean;
BEGIN
  IF seq IS NULL OR v IS NULL THEN
    RETURN;
  END IF;
  EXECUTE 'SELECT last_value, is_called FROM ' || seq INTO last, called;
  IF v > last OR (v = last AND NOT called) THEN
    PERFORM setval(seq, v, true);
  END IF;
END
$$
