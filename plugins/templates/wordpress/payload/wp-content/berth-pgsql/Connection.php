<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * What wpdb::$dbh holds: the PostgreSQL connection, plus the few public fields WordPress's
 * admin screens read from a mysqli object (Site Health reads $wpdb->dbh->client_info).
 */
final class Connection
{
    public readonly string $client_info;
    public readonly string $server_version;
    public readonly Executor $executor;

    public function __construct(public readonly \PgSql\Connection $pg)
    {
        $version = pg_version($pg);
        $this->client_info = 'libpq ' . ($version['client'] ?? '');
        $this->server_version = (string) ($version['server'] ?? '');
        $this->executor = new Executor($pg);
    }

    public static function open(ConnectionUrl $url): self
    {
        // The result text wpdb hands back relies on ISO dates and UTF-8 (MySQL's utf8mb4). Sql::literal
        // writes 'text' with only quotes doubled, which is safe only while backslashes are plain
        // characters: set here, whatever the role's or the database's own settings say.
        $conninfo = $url->conninfo([
            'client_encoding' => 'UTF8',
            'options' => '-c DateStyle=ISO,YMD -c IntervalStyle=postgres -c standard_conforming_strings=on',
            'application_name' => 'wordpress',
        ]);
        $error = '';
        set_error_handler(static function (int $no, string $text) use (&$error): bool {
            $error = $text;
            return true;
        });
        try {
            $pg = pg_connect($conninfo, PGSQL_CONNECT_FORCE_NEW);
        } finally {
            restore_error_handler();
        }
        if ($pg === false) {
            // pg_connect's warning repeats the conninfo (the password): keep libpq's reason only.
            $reason = preg_replace('/^pg_connect\(\): Unable to connect to PostgreSQL server: /', '', $error);
            throw new PgFailure(trim((string) $reason) ?: 'cannot connect to PostgreSQL', PgFailure::CONNECTION_LOST);
        }
        return new self($pg);
    }

    public function close(): void
    {
        @pg_close($this->pg);
    }
}
