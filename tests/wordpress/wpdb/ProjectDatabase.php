<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

/**
 * A database as Berth makes one for a project (plugins/projects/src/project_databases.cpp):
 * a LOGIN role that is no superuser, its own database, the public schema handed to it. The
 * tests connect as that role, never as the cluster's superuser.
 */
final class ProjectDatabase
{
    /** A password with the characters a URL and a conninfo string must both survive. */
    private const PASSWORD = "p@ss w:rd/'q\"\\%";

    private static int $made = 0;

    public function __construct(public readonly string $name, public readonly string $url)
    {
    }

    public static function create(): self
    {
        $admin = self::admin();
        $name = sprintf('p_wpdb%d_%d', getmypid(), ++self::$made);
        pg_query($admin, "CREATE ROLE $name LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '"
            . pg_escape_string($admin, self::PASSWORD) . "'");
        pg_query($admin, "CREATE DATABASE $name OWNER $name TEMPLATE template0 ENCODING 'UTF8'");
        pg_query($admin, "REVOKE ALL ON DATABASE $name FROM PUBLIC");
        $inside = pg_connect(self::conninfo($name), PGSQL_CONNECT_FORCE_NEW);
        pg_query($inside, "ALTER SCHEMA public OWNER TO $name");
        pg_query($inside, 'REVOKE ALL ON SCHEMA public FROM PUBLIC');
        pg_close($inside);
        $base = parse_url(self::adminUrl());
        $url = sprintf(
            'postgresql://%s:%s@%s:%d/%s?application_name=wpdb_test',
            $name,
            rawurlencode(self::PASSWORD),
            $base['host'],
            $base['port'],
            $name
        );
        return new self($name, $url);
    }

    /** A connection as the superuser, to look behind the drop-in's back. */
    public function inspect(): \PgSql\Connection
    {
        return pg_connect(self::conninfo($this->name), PGSQL_CONNECT_FORCE_NEW);
    }

    public function drop(): void
    {
        $admin = self::admin();
        pg_query($admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '$this->name' AND pid <> pg_backend_pid()");
        pg_query($admin, "DROP DATABASE IF EXISTS $this->name");
        pg_query($admin, "DROP ROLE IF EXISTS $this->name");
    }

    private static function adminUrl(): string
    {
        // bootstrap.php keeps with_postgres.sh's URL aside: tests point DATABASE_URL elsewhere.
        $url = getenv('BERTH_TEST_ADMIN_URL') ?: getenv('DATABASE_URL');
        if ($url === false || $url === '') {
            throw new \RuntimeException('DATABASE_URL is not set: run the tests under tests/support/with_postgres.sh.');
        }
        return $url;
    }

    private static function admin(): \PgSql\Connection
    {
        static $admin = null;
        return $admin ??= pg_connect(self::conninfo(), PGSQL_CONNECT_FORCE_NEW);
    }

    private static function conninfo(?string $database = null): string
    {
        $u = parse_url(self::adminUrl());
        $db = $database ?? ltrim($u['path'] ?? '', '/');
        return sprintf("host='%s' port='%d' user='%s' dbname='%s'", $u['host'], $u['port'], $u['user'], $db);
    }
}
