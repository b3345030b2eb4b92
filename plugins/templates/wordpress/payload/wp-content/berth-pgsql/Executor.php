<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * Runs PostgreSQL statements on one connection with MySQL's transaction behaviour.
 *
 * MySQL fails only the statement that erred inside a transaction; PostgreSQL aborts the whole
 * transaction. So inside an open transaction every statement (all the PostgreSQL statements
 * of one MySQL statement together) runs under a savepoint that is rolled back on error.
 * Outside one, the statements of an atomic translation run in BEGIN/COMMIT.
 */
final class Executor
{
    private const SAVEPOINT = 'berth_statement';

    public function __construct(private readonly \PgSql\Connection $pg)
    {
    }

    public function connection(): \PgSql\Connection
    {
        return $this->pg;
    }

    public function inTransaction(): bool
    {
        $status = pg_transaction_status($this->pg);
        return $status === PGSQL_TRANSACTION_INTRANS || $status === PGSQL_TRANSACTION_INERROR;
    }

    /**
     * Runs the statements in order and answers the last one's result (null when none).
     * $wrap false: transaction control (BEGIN, COMMIT, SAVEPOINT ...) runs as it is.
     *
     * @param string[] $statements
     * @throws PgFailure
     */
    public function run(array $statements, bool $atomic, bool $wrap = true): ?\PgSql\Result
    {
        if ($statements === []) {
            return null;
        }
        if ($wrap && $this->inTransaction()) {
            return $this->underSavepoint($statements);
        }
        if ($atomic && count($statements) > 1 && $wrap) {
            return $this->inOwnTransaction($statements);
        }
        $last = null;
        foreach ($statements as $sql) {
            $last = $this->exec($sql);
        }
        return $last;
    }

    /**
     * One statement; throws what PostgreSQL answered when it fails.
     *
     * @throws PgFailure
     */
    public function exec(string $sql): \PgSql\Result
    {
        if (pg_connection_status($this->pg) !== PGSQL_CONNECTION_OK || !@pg_send_query($this->pg, $sql)) {
            throw PgFailure::connectionLost(pg_last_error($this->pg));
        }
        $result = pg_get_result($this->pg);
        // A single statement has one result; drain anything else so the connection is ready.
        while (pg_get_result($this->pg) !== false) {
        }
        if ($result === false) {
            throw PgFailure::connectionLost(pg_last_error($this->pg));
        }
        $status = pg_result_status($result);
        if ($status === PGSQL_FATAL_ERROR || $status === PGSQL_BAD_RESPONSE || $status === PGSQL_NONFATAL_ERROR) {
            $failure = PgFailure::fromResult($result);
            // A server restart or pg_terminate_backend() answers 57P01 and closes the socket.
            if (pg_connection_status($this->pg) !== PGSQL_CONNECTION_OK || str_starts_with($failure->sqlstate, '57P')) {
                throw PgFailure::connectionLost($failure->getMessage());
            }
            throw $failure;
        }
        return $result;
    }

    /**
     * Several statements in one text, one round trip (PostgreSQL's simple query protocol runs
     * them as one implicit transaction unless they say otherwise). Answers every statement's
     * result in order; throws the first failure (the statements after it did not run).
     *
     * @return list<\PgSql\Result>
     * @throws PgFailure
     */
    public function execAll(string $sql): array
    {
        if (pg_connection_status($this->pg) !== PGSQL_CONNECTION_OK || !@pg_send_query($this->pg, $sql)) {
            throw PgFailure::connectionLost(pg_last_error($this->pg));
        }
        $results = [];
        $failure = null;
        while (($result = pg_get_result($this->pg)) !== false) {
            $status = pg_result_status($result);
            if ($status === PGSQL_FATAL_ERROR || $status === PGSQL_BAD_RESPONSE || $status === PGSQL_NONFATAL_ERROR) {
                $failure ??= PgFailure::fromResult($result);
                continue;
            }
            $results[] = $result;
        }
        if (pg_connection_status($this->pg) !== PGSQL_CONNECTION_OK
            || ($failure !== null && str_starts_with($failure->sqlstate, '57P'))) {
            throw PgFailure::connectionLost($failure !== null ? $failure->getMessage() : pg_last_error($this->pg));
        }
        if ($failure !== null) {
            throw $failure;
        }
        return $results;
    }

    /** @param string[] $statements */
    private function underSavepoint(array $statements): ?\PgSql\Result
    {
        $this->exec('SAVEPOINT ' . self::SAVEPOINT);
        try {
            $last = null;
            foreach ($statements as $sql) {
                $last = $this->exec($sql);
            }
        } catch (PgFailure $failure) {
            $this->quietly('ROLLBACK TO SAVEPOINT ' . self::SAVEPOINT, $failure);
            $this->quietly('RELEASE SAVEPOINT ' . self::SAVEPOINT, $failure);
            throw $failure;
        }
        $this->exec('RELEASE SAVEPOINT ' . self::SAVEPOINT);
        return $last;
    }

    /** @param string[] $statements */
    private function inOwnTransaction(array $statements): ?\PgSql\Result
    {
        $this->exec('BEGIN');
        try {
            $last = null;
            foreach ($statements as $sql) {
                $last = $this->exec($sql);
            }
            $this->exec('COMMIT');
        } catch (PgFailure $failure) {
            $this->quietly('ROLLBACK', $failure);
            throw $failure;
        }
        return $last;
    }

    /** Cleanup after a failure: the statement's own error is the one to report. */
    private function quietly(string $sql, PgFailure $failure): void
    {
        if ($failure->isConnectionLost()) {
            return;
        }
        try {
            $this->exec($sql);
        } catch (PgFailure) {
        }
    }
}
