<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * What wpdb::$dbh holds: the PostgreSQL connection, plus the few public fields WordPress's
 * admin screens read from a mysqli object (Site Health reads $wpdb->dbh->client_info).
 *
 * The connection is persistent (pg_pconnect): a php-cgi worker keeps its backend from one
 * request to the next instead of paying a new one (its start, its caches) every time. A
 * worker runs as the project's own uid and serves that project only, and the link is keyed
 * by the whole conninfo (user, password, database), so a kept backend never serves another
 * tenant. What a request left behind is undone when the next one takes the link (renew()).
 */
final class Connection
{
    /**
     * Session state an earlier request could leave that PHP's pgsql does not undo: it rolls
     * back an open transaction at request end and sends RESET ALL when pg_pconnect hands
     * the link out again, but keeps session advisory locks and temporary tables. Sent in
     * the same round trip as the catalogue query (SupportSchema::loadCatalog()).
     */
    public const RESET_SQL = 'SELECT pg_advisory_unlock_all(); DISCARD TEMP';

    public readonly string $client_info;
    public readonly string $server_version;
    public readonly Executor $executor;

    /**
     * Links handed out in this request, by conninfo: a second Wpdb of the same request
     * (a plugin's) shares the first's session and must not roll back its transaction.
     * PHP's statics live for one request, which is exactly the scope wanted.
     *
     * @var array<string,int>
     */
    private static array $holders = [];
    private bool $closed = false;
    /** This link is the request's first on its conninfo: the session is this request's to reset. */
    private bool $first = false;

    private function __construct(public readonly \PgSql\Connection $pg, private readonly string $key)
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
        // characters: set here, whatever the role's or the database's own settings say. Given
        // at connect, they are the session's defaults, which RESET ALL goes back to.
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
            $pg = pg_pconnect($conninfo);
        } finally {
            restore_error_handler();
        }
        if ($pg === false) {
            // pg_pconnect's warning repeats the conninfo (the password): keep libpq's reason only.
            $reason = preg_replace('/^pg_p?connect\(\): (Unable to connect to PostgreSQL server: )?/', '', $error);
            throw new PgFailure(trim((string) $reason) ?: 'cannot connect to PostgreSQL', PgFailure::CONNECTION_LOST);
        }
        $connection = new self($pg, $conninfo);
        $first = (self::$holders[$conninfo] ?? 0) === 0;
        self::$holders[$conninfo] = (self::$holders[$conninfo] ?? 0) + 1;
        $connection->first = $first;
        if ($first) {
            try {
                $connection->renew();
            } catch (\Throwable $error) {
                $connection->close();
                throw $error;
            }
        }
        return $connection;
    }

    /** RESET_SQL for the request's first link; nothing for one sharing an earlier link's session. */
    public function resetSql(): string
    {
        return $this->first ? self::RESET_SQL : '';
    }

    /**
     * A kept link made as good as new for this request: a backend that is gone (server
     * restart, pg_terminate_backend) replaced, a transaction left open or aborted rolled back.
     */
    private function renew(): void
    {
        if (pg_connection_status($this->pg) !== PGSQL_CONNECTION_OK) {
            $this->reset();
            return;
        }
        // Anything still in flight is drained first (PHP does the same at request end).
        while (pg_connection_busy($this->pg) && pg_get_result($this->pg) !== false) {
        }
        $status = pg_transaction_status($this->pg);
        if ($status === PGSQL_TRANSACTION_UNKNOWN) {
            $this->reset();
            return;
        }
        if ($status !== PGSQL_TRANSACTION_IDLE) {
            // pg_pconnect's RESET ALL ran inside that transaction and is undone with it: again.
            try {
                $this->executor->exec('ROLLBACK');
                $this->executor->exec('RESET ALL');
            } catch (PgFailure $failure) {
                if (!$failure->isConnectionLost()) {
                    throw $failure;
                }
                $this->reset();
            }
        }
    }

    /** A new backend for the link (libpq's PQreset: the same conninfo). */
    private function reset(): void
    {
        if (!@pg_connection_reset($this->pg) || pg_connection_status($this->pg) !== PGSQL_CONNECTION_OK) {
            throw PgFailure::connectionLost('the kept connection to PostgreSQL was lost and could not be made again: '
                . trim((string) pg_last_error($this->pg)));
        }
    }

    /**
     * Gives the link back: the backend stays with the worker for its next request (pg_close
     * does not end a persistent link's session).
     */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        if (isset(self::$holders[$this->key]) && --self::$holders[$this->key] <= 0) {
            unset(self::$holders[$this->key]);
        }
        @pg_close($this->pg);
    }
}
