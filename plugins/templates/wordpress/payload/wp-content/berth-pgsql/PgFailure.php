<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * A statement PostgreSQL refused (or a connection that broke), with the diagnostic fields
 * MysqlErrorText needs to answer in MySQL's words.
 */
final class PgFailure extends \RuntimeException
{
    /** SQLSTATE of a broken connection: wpdb treats it as MySQL's 2006 and reconnects. */
    public const CONNECTION_LOST = '08006';

    public function __construct(
        string $message,
        public readonly string $sqlstate,
        public readonly string $detail = '',
        public readonly string $constraint = '',
        public readonly string $table = '',
        public readonly string $column = '',
    ) {
        parent::__construct($message);
    }

    public static function fromResult(\PgSql\Result $result): self
    {
        $field = static fn (int $code): string => (string) (pg_result_error_field($result, $code) ?? '');
        $message = $field(PGSQL_DIAG_MESSAGE_PRIMARY);
        if ($message === '') {
            $message = trim((string) pg_result_error($result));
        }
        return new self(
            $message,
            $field(PGSQL_DIAG_SQLSTATE),
            $field(PGSQL_DIAG_MESSAGE_DETAIL),
            $field(PGSQL_DIAG_CONSTRAINT_NAME),
            $field(PGSQL_DIAG_TABLE_NAME),
            $field(PGSQL_DIAG_COLUMN_NAME),
        );
    }

    public static function connectionLost(string $why): self
    {
        return new self($why === '' ? 'the connection to PostgreSQL was lost' : trim($why), self::CONNECTION_LOST);
    }

    public function isConnectionLost(): bool
    {
        return $this->sqlstate === self::CONNECTION_LOST || str_starts_with($this->sqlstate, '08');
    }
}
