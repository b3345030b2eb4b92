<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * WordPress's database class on PostgreSQL.
 *
 * Every statement WordPress sends is MySQL; the Translator parses it and writes PostgreSQL,
 * which runs here on a pgsql connection opened from the project's DATABASE_URL. What WordPress
 * reads back (rows, insert_id, rows_affected, last_error, column info, charsets) has mysqli's
 * shape, so core and plugins never notice, and nothing here ever calls mysqli.
 *
 * The methods overridden are those of \wpdb (WordPress 6.1) that touch the connection;
 * signatures stay untyped because the parent's are.
 */
class Wpdb extends \wpdb
{
    /** Statements slower than this (milliseconds; env BERTH_SLOW_QUERY_MS) are logged. */
    private const SLOW_MS = 1000.0;
    private const LOG_TEXT_LIMIT = 4000;
    /** SQLSTATEs that are a statement's own fault (as in MySQL), not a translation gap. */
    private const ORDINARY_STATES = ['23505', '23502', '23503', '23514', '22001', '42P01', '42P07', '42703', '40P01', '55P03', '57014'];

    private ?Translator $translator = null;
    private ?Results $results = null;
    private string $databaseName = '';
    private bool $everConnected = false;
    private string $connectError = '';
    private ?string $serverInfo = null;
    /** The current error was logged already (with its reason); print_error logs no copy. */
    private bool $errorLogged = false;
    /** The last statement found the connection gone (MySQL's 2006): reopen and retry once. */
    private bool $connectionLost = false;

    public function db_connect($allow_bail = true)
    {
        $this->is_mysql = true;
        $this->connectError = '';
        if ($this->dbh instanceof Connection) {
            // A reconnect: the link is given back; Connection::open() replaces a lost backend.
            $this->dbh->close();
            $this->dbh = null;
        }
        $connection = null;
        try {
            $url = ConnectionUrl::parse(self::databaseUrl());
            $connection = Connection::open($url);
            $this->databaseName = (string) ($this->dbname ?: $url->database());
            // One round trip on a kept connection: what an earlier request may have left in the
            // session is cleared, and the catalogue read (the support schema checked once per backend).
            $rows = SupportSchema::loadCatalog($connection->executor, $connection->resetSql());
            $this->translator = new Translator(Catalog::fromRows($rows), $this->databaseName);
        } catch (\Throwable $error) {
            $this->connectError = $error->getMessage();
            if ($connection !== null) {
                // Connected, but the schema could not be prepared: say so in the logs.
                error_log('WordPress database error: cannot prepare the database for WordPress: ' . $this->connectError);
                $connection->close();
            }
            $this->dbh = null;
            $this->translator = null;
            if ($allow_bail) {
                $this->bailNoConnection();
            }
            return false;
        }
        $this->dbh = $connection;
        if (!$this->everConnected) {
            $this->init_charset();
        }
        $this->everConnected = true;
        $this->set_charset($this->dbh);
        $this->ready = true;
        $this->set_sql_mode();
        $this->select($this->dbname, $this->dbh);
        return true;
    }

    public function check_connection($allow_bail = true)
    {
        if ($this->dbh instanceof Connection && pg_connection_status($this->dbh->pg) === PGSQL_CONNECTION_OK
            && @pg_ping($this->dbh->pg)) {
            return true;
        }
        for ($tries = 1; $tries <= $this->reconnect_retries; $tries++) {
            if ($this->db_connect(false)) {
                return true;
            }
            sleep(1);
        }
        if (did_action('template_redirect') || !$allow_bail) {
            return false;
        }
        wp_load_translations_early();
        $message = '<h1>' . __('Error reconnecting to the database') . "</h1>\n"
            . '<p>' . __('The connection to the database server was lost. The database server may be down or restarting.') . "</p>\n";
        $this->bail($message, 'db_connect_fail');
        dead_db();
    }

    public function close()
    {
        if (!$this->dbh instanceof Connection) {
            return false;
        }
        $this->dbh->close();
        $this->dbh = null;
        $this->translator = null;
        $this->ready = false;
        $this->everConnected = false;
        return true;
    }

    /** PostgreSQL's database comes with the connection: there is nothing to select. */
    public function select($db, $dbh = null)
    {
    }

    public function determine_charset($charset, $collate)
    {
        // PostgreSQL stores UTF-8: always MySQL's utf8mb4 and its best collation.
        if ('utf8' === $charset || '' === $charset || null === $charset) {
            $charset = 'utf8mb4';
        }
        if ('utf8mb4' === $charset) {
            if (!$collate || 'utf8_general_ci' === $collate) {
                $collate = 'utf8mb4_unicode_ci';
            } else {
                $collate = str_replace('utf8_', 'utf8mb4_', (string) $collate);
            }
        }
        if ('utf8mb4_unicode_ci' === $collate) {
            $collate = 'utf8mb4_unicode_520_ci';
        }
        return compact('charset', 'collate');
    }

    /** The connection is UTF-8 already; the translator's session keeps the names MySQL would. */
    public function set_charset($dbh, $charset = null, $collate = null)
    {
        $charset = $charset ?? $this->charset;
        $collate = $collate ?? $this->collate;
        if (empty($charset) || $this->translator === null) {
            return;
        }
        $sql = "SET NAMES '" . $this->mysqlEscape((string) $charset) . "'";
        if (!empty($collate)) {
            $sql .= " COLLATE '" . $this->mysqlEscape((string) $collate) . "'";
        }
        $this->runQuietly($sql);
    }

    /** Keeps the session's sql_mode in the translator (minus the modes WordPress refuses). */
    public function set_sql_mode($modes = array())
    {
        if ($this->translator === null) {
            return;
        }
        if (empty($modes)) {
            $current = $this->runQuietly('SELECT @@SESSION.sql_mode');
            if ($current === null || $current === '') {
                return;
            }
            $modes = explode(',', $current);
        }
        $modes = array_change_key_case($modes, CASE_UPPER);
        $incompatible = (array) apply_filters('incompatible_sql_modes', $this->incompatible_modes);
        foreach ($modes as $i => $mode) {
            if (in_array($mode, $incompatible, true)) {
                unset($modes[$i]);
            }
        }
        $this->runQuietly("SET SESSION sql_mode='" . $this->mysqlEscape(implode(',', $modes)) . "'");
    }

    /**
     * MySQL's escaping (mysqli_real_escape_string): the translator's lexer reads MySQL
     * string literals, so what WordPress escapes here is decoded there.
     */
    public function _real_escape($string)
    {
        if (!is_scalar($string)) {
            return '';
        }
        return $this->add_placeholder_escape($this->mysqlEscape((string) $string));
    }

    public function flush()
    {
        parent::flush();
        $this->results = null;
        $this->errorLogged = false;
    }

    public function query($query)
    {
        if (!$this->ready) {
            $this->check_current_query = true;
            return false;
        }
        $query = apply_filters('query', $query);
        if (!$query) {
            $this->insert_id = 0;
            return false;
        }
        $this->flush();
        $this->func_call = "\$db->query(\"$query\")";

        // As core: a write with text that is not valid for its columns is refused.
        if ($this->check_current_query && !$this->check_ascii($query)) {
            $stripped = $this->strip_invalid_text_from_query($query);
            $this->flush();
            if ($stripped !== $query) {
                $this->insert_id = 0;
                $this->last_query = $query;
                wp_load_translations_early();
                $this->last_error = __('WordPress database error: Could not perform query because it contains invalid data.');
                return false;
            }
        }
        $this->check_current_query = true;
        $this->last_query = $query;

        $outcome = $this->_do_query($query);
        if ($outcome === null && $this->connectionLost) {
            // The server went away (a restart): reconnect once, as core does for MySQL's 2006.
            $this->last_error = '';
            if (!$this->check_connection()) {
                $this->insert_id = 0;
                return false;
            }
            $outcome = $this->_do_query($query);
        }

        if ($outcome === null) {
            if ($this->insert_id && preg_match('/^\s*(insert|replace)\s/i', $query)) {
                $this->insert_id = 0;
            }
            $this->print_error();
            return false;
        }
        $this->results = $outcome['results'];

        if (preg_match('/^\s*(create|alter|truncate|drop)\s/i', $query)) {
            return $this->result;
        }
        if (preg_match('/^\s*(insert|delete|update|replace)\s/i', $query)) {
            $this->rows_affected = $outcome['affected'];
            if (preg_match('/^\s*(insert|replace)\s/i', $query)) {
                $this->insert_id = $outcome['insertId'] ?? $this->insert_id;
            }
            return $this->rows_affected;
        }
        $this->last_result = $outcome['results']->rows;
        $this->num_rows = $outcome['results']->count();
        return $this->num_rows;
    }

    /**
     * Translates and runs one MySQL statement. Answers the outcome, or null with last_error
     * set (and connectionLost when the connection is gone and may be reopened).
     *
     * @return array{results: Results, affected: int, insertId: ?int}|null
     */
    private function _do_query(string $query): ?array
    {
        if (defined('SAVEQUERIES') && SAVEQUERIES) {
            $this->timer_start();
        }
        $start = microtime(true);
        $this->num_queries++;
        try {
            $outcome = $this->execute($query);
        } finally {
            $elapsed = microtime(true) - $start;
            if (defined('SAVEQUERIES') && SAVEQUERIES) {
                $this->log_query($query, $this->timer_stop(), $this->get_caller(), $this->time_start, array());
            }
        }
        $slowMs = is_numeric(getenv('BERTH_SLOW_QUERY_MS')) ? (float) getenv('BERTH_SLOW_QUERY_MS') : self::SLOW_MS;
        if ($outcome !== null && $elapsed * 1000 >= $slowMs) {
            error_log(sprintf('WordPress database slow query (%.0f ms): %s', $elapsed * 1000, self::forLog($query)));
        }
        return $outcome;
    }

    /** @return array{results: Results, affected: int, insertId: ?int}|null */
    private function execute(string $query): ?array
    {
        $this->connectionLost = false;
        $this->result = false;
        if ($this->translator === null || !$this->dbh instanceof Connection) {
            $this->connectionLost = true;
            $this->last_error = 'MySQL server has gone away';
            return null;
        }
        try {
            $translation = $this->translator->translate($query);
        } catch (MysqlError $error) {
            $this->last_error = $error->getMessage();
            return null;
        } catch (TranslateError | ParseError $error) {
            $this->failLoudly($query, $error->getMessage());
            return null;
        }

        if ($translation->kind === 'answer') {
            $this->result = true;
            return ['results' => Results::fromAnswer($translation->answer ?? []), 'affected' => 0, 'insertId' => null];
        }
        $control = in_array($translation->kind, ['begin', 'commit', 'rollback', 'savepoint'], true);
        try {
            $result = $this->dbh->executor->run($translation->sql, $translation->atomic, !$control);
        } catch (PgFailure $failure) {
            if ($translation->catalogChanged) {
                $this->reloadCatalog();
            }
            [, $text] = MysqlErrorText::of($failure, $this->databaseName, $this->translator->catalog());
            if ($failure->isConnectionLost()) {
                $this->connectionLost = true;
                $this->last_error = $text;
                return null;
            }
            $this->last_error = $text;
            if (!in_array($failure->sqlstate, self::ORDINARY_STATES, true)) {
                // Not the statement's fault: PostgreSQL refused what the translator wrote.
                $this->failLoudly($query, 'PostgreSQL refused the translation: ' . $failure->getMessage()
                    . ($failure->sqlstate !== '' ? " (SQLSTATE $failure->sqlstate)" : '')
                    . ' in: ' . implode('; ', $translation->sql), $text);
            }
            return null;
        }
        $this->result = true;
        if ($translation->catalogChanged) {
            // translate() changed the translator's catalogue in memory already.
            $this->table_charset = array();
            $this->col_meta = array();
        }
        $results = $result === null ? Results::empty() : Results::fromPg($result);
        switch ($translation->affected) {
            case 'upsert':
            case 'replace':
                // One row per touched row: inserted counts 1, updated or replaced 2 (MySQL's rule).
                $affected = 0;
                foreach ($results->rows as $row) {
                    $affected += ($row->__berth_inserted ?? '1') === '1' ? 1 : 2;
                }
                break;
            default:
                $affected = $result === null ? 0 : pg_affected_rows($result);
        }
        $insertId = null;
        if ($translation->insertIdColumn !== null && $results->count() > 0) {
            $value = $results->value(0, $translation->insertIdColumn);
            $insertId = $value === null ? null : (int) $value;
        } elseif ($translation->insertIdColumn === null && in_array($translation->kind, ['insert'], true)) {
            // mysqli_insert_id() is 0 after an insert into a table without AUTO_INCREMENT.
            $insertId = 0;
        }
        return ['results' => $results, 'affected' => $affected, 'insertId' => $insertId];
    }

    /** A statement that cannot run: one line in the project's logs, and the query fails. */
    private function failLoudly(string $query, string $reason, ?string $lastError = null): void
    {
        error_log('WordPress database error: cannot run ' . self::forLog($query) . ': ' . $reason);
        $this->last_error = $lastError ?? $reason;
        $this->errorLogged = true;
    }

    public function print_error($str = '')
    {
        global $EZSQL_ERROR;

        if (!$str) {
            $str = $this->last_error;
        }
        $EZSQL_ERROR[] = array(
            'query' => $this->last_query,
            'error_str' => $str,
        );
        if ($this->suppress_errors) {
            return false;
        }
        if (!$this->errorLogged) {
            $caller = $this->get_caller();
            if ($caller) {
                $error = sprintf('WordPress database error %1$s for query %2$s made by %3$s', $str, $this->last_query, $caller);
            } else {
                $error = sprintf('WordPress database error %1$s for query %2$s', $str, $this->last_query);
            }
            error_log($error);
        }
        if (!$this->show_errors) {
            return false;
        }
        wp_load_translations_early();
        if (is_multisite()) {
            $msg = sprintf("%s [%s]\n%s\n", __('WordPress database error:'), $str, $this->last_query);
            if (defined('ERRORLOGFILE')) {
                error_log($msg, 3, ERRORLOGFILE);
            }
            if (defined('DIEONDBERROR')) {
                wp_die($msg);
            }
        } else {
            printf(
                '<div id="error"><p class="wpdberror"><strong>%s</strong> [%s]<br /><code>%s</code></p></div>',
                __('WordPress database error:'),
                htmlspecialchars((string) $str, ENT_QUOTES),
                htmlspecialchars((string) $this->last_query, ENT_QUOTES)
            );
        }
    }

    public function bail($message, $error_code = '500')
    {
        if ($this->show_errors) {
            if ($this->connectError !== '') {
                $message = '<p><code>' . htmlspecialchars($this->connectError, ENT_QUOTES) . "</code></p>\n" . $message;
            }
            wp_die($message);
        }
        if (class_exists('WP_Error', false)) {
            $this->error = new \WP_Error($error_code, $message);
        } else {
            $this->error = $message;
        }
        return false;
    }

    protected function load_col_info()
    {
        if ($this->col_info || $this->results === null) {
            return;
        }
        $this->col_info = $this->results->columnInfo($this->databaseName, fn (array $oids): array => $this->tableNames($oids));
    }

    /**
     * The columns of a table as MySQL's SHOW FULL COLUMNS has them, answered by the translator
     * from its catalogue: charsets and lengths never need a round trip. Every text column is
     * utf8mb4 (PostgreSQL stores UTF-8).
     */
    protected function get_table_charset($table)
    {
        $tablekey = strtolower($table);
        $charset = apply_filters('pre_get_table_charset', null, $table);
        if (null !== $charset) {
            return $charset;
        }
        if (isset($this->table_charset[$tablekey])) {
            return $this->table_charset[$tablekey];
        }
        $columns = $this->describeColumns((string) $table);
        if ($columns === null) {
            return new \WP_Error('wpdb_get_table_charset_failure', __('Could not retrieve table charset.'));
        }
        $this->col_meta[$tablekey] = $columns;
        $charset = 'utf8mb4';
        foreach ($columns as $column) {
            [$type] = explode('(', (string) ($column->Type ?? ''));
            if (in_array(strtoupper($type), array('BINARY', 'VARBINARY', 'TINYBLOB', 'MEDIUMBLOB', 'BLOB', 'LONGBLOB'), true)) {
                $charset = 'binary';
                break;
            }
        }
        $this->table_charset[$tablekey] = $charset;
        return $charset;
    }

    /** Everything stored is valid UTF-8 already; only invalid bytes need core's stripping. */
    protected function check_safe_collation($query)
    {
        return mb_check_encoding((string) $query, 'UTF-8');
    }

    public function has_cap($db_cap)
    {
        return in_array(strtolower((string) $db_cap), ['collation', 'group_concat', 'subqueries', 'set_charset', 'utf8mb4', 'utf8mb4_520'], true);
    }

    /** The MySQL version the translator speaks (its answer to SELECT VERSION()). */
    public function db_server_info()
    {
        if ($this->serverInfo === null) {
            $version = $this->translator !== null ? $this->runQuietly('SELECT VERSION()') : null;
            if ($version === null || $version === '') {
                return '10.11.0-MariaDB-berth-postgresql';
            }
            $this->serverInfo = $version;
        }
        return $this->serverInfo;
    }

    /** The PostgreSQL server behind it, for the README and diagnostics. */
    public function postgresql_version(): string
    {
        return $this->dbh instanceof Connection ? $this->dbh->server_version : '';
    }

    /** MySQL's escaping of a string, without WordPress's placeholder escape. */
    private function mysqlEscape(string $string): string
    {
        return strtr($string, [
            '\\' => '\\\\',
            "\0" => '\\0',
            "\n" => '\\n',
            "\r" => '\\r',
            "'" => "\\'",
            '"' => '\\"',
            "\x1a" => '\\Z',
        ]);
    }

    /**
     * A statement of the session's own (SET NAMES, sql_mode): run without touching the
     * query state WordPress reads. Answers the first value of the first row, if any.
     */
    private function runQuietly(string $mysql): ?string
    {
        try {
            $translation = $this->translator->translate($mysql);
            if ($translation->kind === 'answer') {
                $row = $translation->answer['rows'][0] ?? null;
                return $row === null ? null : ($row[0] ?? null);
            }
            if (!$this->dbh instanceof Connection) {
                return null;
            }
            $result = $this->dbh->executor->run($translation->sql, $translation->atomic);
            if ($result === null || pg_num_fields($result) === 0) {
                return null;
            }
            $row = pg_fetch_row($result);
            return $row === false ? null : $row[0];
        } catch (\Throwable $error) {
            error_log('WordPress database error: cannot run ' . $mysql . ': ' . $error->getMessage());
            return null;
        }
    }

    /** @return array<string,\stdClass>|null lower-case column name => SHOW FULL COLUMNS row */
    private function describeColumns(string $table): ?array
    {
        if ($this->translator === null) {
            return null;
        }
        $quoted = '`' . implode('`.`', array_map(static fn ($p) => str_replace('`', '``', $p), explode('.', $table))) . '`';
        try {
            $translation = $this->translator->translate("SHOW FULL COLUMNS FROM $quoted");
            if ($translation->kind === 'answer') {
                $results = Results::fromAnswer($translation->answer ?? []);
            } else {
                $result = $this->dbh->executor->run($translation->sql, $translation->atomic);
                $results = $result === null ? Results::empty() : Results::fromPg($result);
            }
        } catch (MysqlError) {
            return null;
        } catch (\Throwable $error) {
            // Without the catalogue's answer: utf8mb4 and no length limit, which PostgreSQL
            // enforces itself.
            error_log('WordPress database error: cannot run SHOW FULL COLUMNS FROM ' . $quoted . ': ' . $error->getMessage());
            return [];
        }
        $columns = [];
        foreach ($results->rows as $row) {
            if (isset($row->Field)) {
                $columns[strtolower((string) $row->Field)] = $row;
            }
        }
        return $columns;
    }

    private function loadCatalog(Executor $executor): Catalog
    {
        $rows = pg_fetch_all($executor->exec(Catalog::loadSql()));
        return Catalog::fromRows($rows === false ? [] : $rows);
    }

    /**
     * DDL that failed to run: translate() had applied it to the catalogue in memory already,
     * so the translator goes on with what is stored.
     */
    private function reloadCatalog(): void
    {
        if (!$this->dbh instanceof Connection || $this->translator === null) {
            return;
        }
        try {
            $catalog = $this->loadCatalog($this->dbh->executor);
        } catch (PgFailure $failure) {
            error_log('WordPress database error: cannot reload the schema catalogue: ' . $failure->getMessage());
            return;
        }
        $this->translator->setCatalog($catalog);
        $this->table_charset = array();
        $this->col_meta = array();
    }

    /**
     * @param list<int> $oids
     * @return array<int,string>
     */
    private function tableNames(array $oids): array
    {
        if (!$this->dbh instanceof Connection) {
            return [];
        }
        try {
            $result = $this->dbh->executor->exec(
                'SELECT oid::bigint, relname FROM pg_class WHERE oid IN (' . implode(',', array_map('intval', $oids)) . ')'
            );
        } catch (PgFailure) {
            return [];
        }
        $names = [];
        while (($row = pg_fetch_row($result)) !== false) {
            $names[(int) $row[0]] = (string) $row[1];
        }
        return $names;
    }

    private function bailNoConnection(): void
    {
        wp_load_translations_early();
        if (file_exists(WP_CONTENT_DIR . '/db-error.php')) {
            require_once WP_CONTENT_DIR . '/db-error.php';
            die();
        }
        $message = '<h1>' . __('Error establishing a database connection') . "</h1>\n"
            . '<p>' . __('WordPress could not connect to the project&#8217;s PostgreSQL database (DATABASE_URL). The database server may be down or restarting.') . "</p>\n";
        $this->bail($message, 'db_connect_fail');
    }

    private static function databaseUrl(): string
    {
        $url = getenv('DATABASE_URL');
        if ($url === false || $url === '') {
            $url = $_SERVER['DATABASE_URL'] ?? $_ENV['DATABASE_URL'] ?? '';
        }
        if (!is_string($url) || $url === '') {
            throw new \InvalidArgumentException('DATABASE_URL is not set: WordPress has no database to connect to.');
        }
        return $url;
    }

    /** One log line: the statement's whitespace folded, very long texts cut. */
    private static function forLog(string $query): string
    {
        $line = trim((string) preg_replace('/\s+/', ' ', $query));
        return strlen($line) > self::LOG_TEXT_LIMIT ? substr($line, 0, self::LOG_TEXT_LIMIT) . '...' : $line;
    }
}
