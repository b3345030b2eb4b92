<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * Makes sure the translator's catalogue table and support functions exist in the project's
 * schema, at the translator's current Translator::SUPPORT_VERSION.
 *
 * The installed version is the comment on a small marker table, berth_mysql_support, so that
 * a single query that cannot fail answers it on every connect (PHP connects per request).
 * Setup runs once, in a transaction, under an advisory lock: two first requests at the same
 * moment do not run it twice.
 */
final class SupportSchema
{
    public const MARKER_TABLE = 'berth_mysql_support';
    private const LOCK_KEY = 0x4265727468;

    public static function ensure(Executor $executor): void
    {
        if (self::installedVersion($executor) === Translator::SUPPORT_VERSION) {
            return;
        }
        $executor->exec('BEGIN');
        try {
            $executor->exec('SELECT pg_advisory_xact_lock(' . self::LOCK_KEY . ')');
            if (self::installedVersion($executor) !== Translator::SUPPORT_VERSION) {
                foreach (Translator::setupSql() as $sql) {
                    $executor->exec($sql);
                }
                $executor->exec('CREATE TABLE IF NOT EXISTS ' . self::MARKER_TABLE . ' ()');
                $executor->exec('COMMENT ON TABLE ' . self::MARKER_TABLE . " IS '"
                    . self::describe(Translator::SUPPORT_VERSION) . "'");
            }
            $executor->exec('COMMIT');
        } catch (\Throwable $error) {
            try {
                $executor->exec('ROLLBACK');
            } catch (PgFailure) {
            }
            throw $error;
        }
    }

    /** The installed version, null when the catalogue or the marker is missing. */
    public static function installedVersion(Executor $executor): ?int
    {
        $result = $executor->exec(
            "SELECT obj_description(to_regclass('" . self::MARKER_TABLE . "'), 'pg_class'),"
            . ' to_regclass(' . self::literal(self::catalogTable()) . ') IS NOT NULL'
        );
        $row = pg_fetch_row($result);
        if ($row === false || $row[1] !== 't' || $row[0] === null) {
            return null;
        }
        return preg_match('/version (\d+)/', $row[0], $m) ? (int) $m[1] : null;
    }

    private static function describe(int $version): string
    {
        return "Berth: MySQL support for WordPress installed at version $version";
    }

    private static function catalogTable(): string
    {
        return \defined(Catalog::class . '::TABLE') ? (string) \constant(Catalog::class . '::TABLE') : 'berth_mysql_catalog';
    }

    private static function literal(string $text): string
    {
        return "'" . str_replace("'", "''", $text) . "'";
    }
}
