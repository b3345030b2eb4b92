<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * Makes sure the translator's catalogue table and support functions exist in the project's
 * schema, at the translator's current Translator::SUPPORT_VERSION, and reads the catalogue.
 *
 * The installed version is the comment on a small marker table, berth_mysql_support, so that
 * a single query that cannot fail answers it. Setup runs once, in a transaction, under an
 * advisory lock: two first requests at the same moment do not run it twice.
 *
 * Connections are kept from one request to the next (Connection): a backend that checked the
 * version once need not check it again. What says it did is a prepared statement, the
 * catalogue query, named after the version (statementName()): it lives exactly as long as the
 * backend, survives the RESET ALL pg_pconnect sends on every reuse, and a drop-in of another
 * version looks for another name. So a request on a kept backend reads the catalogue in one
 * round trip, EXECUTE of that statement; a new backend (or one whose statement fails, e.g.
 * the catalogue was dropped) checks, sets up if needed and prepares it.
 */
final class SupportSchema
{
    public const MARKER_TABLE = 'berth_mysql_support';
    private const LOCK_KEY = 0x4265727468;

    /**
     * The catalogue's rows (Catalog::fromRows), the support schema made sure of first.
     * $before: statements sent in the same round trip, ahead of the catalogue query.
     *
     * @return list<array<string,mixed>>
     * @throws PgFailure
     */
    public static function loadCatalog(Executor $executor, string $before = ''): array
    {
        $name = self::statementName();
        try {
            $results = $executor->execAll(($before !== '' ? "$before; " : '') . "EXECUTE $name");
            return self::rows(end($results));
        } catch (PgFailure $failure) {
            if ($failure->isConnectionLost()) {
                throw $failure;
            }
        }
        // A backend that has not checked (or whose statement broke): the implicit transaction
        // of that round trip was rolled back, $before with it.
        if ($before !== '') {
            $executor->execAll($before);
        }
        self::ensure($executor);
        try {
            $executor->exec("DEALLOCATE $name");
        } catch (PgFailure $failure) {
            if ($failure->isConnectionLost()) {
                throw $failure;
            }
        }
        $executor->exec("PREPARE $name AS " . Catalog::loadSql());
        return self::rows($executor->exec("EXECUTE $name"));
    }

    /** The catalogue statement's name on a backend that checked this version. */
    public static function statementName(): string
    {
        // The query's text is in the name too: a drop-in that reads the catalogue differently
        // never executes an older drop-in's statement.
        return 'berth_catalog_v' . Translator::SUPPORT_VERSION . '_' . substr(md5(Catalog::loadSql()), 0, 8);
    }

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

    /** @return list<array<string,mixed>> */
    private static function rows(\PgSql\Result|false $result): array
    {
        if ($result === false) {
            return [];
        }
        $rows = pg_fetch_all($result);
        return $rows === false ? [] : $rows;
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
