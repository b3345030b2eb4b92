<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * One MySQL statement translated: the PostgreSQL statements to run and how to read their
 * outcome the MySQL way (see README.md, "Translator").
 */
final class Translation
{
    /**
     * @param string   $kind 'select'|'insert'|'update'|'delete'|'ddl'|'answer'|'set'|'begin'|
     *                       'commit'|'rollback'|'savepoint'|'noop'
     * @param string[] $sql  PostgreSQL statements in order; for 'select' the last one's rows
     *                       are the result
     * @param ?array{columns: string[], rows: array<int, array<int, ?string>>} $answer
     * @param string   $affected 'rows'|'upsert'|'replace'
     */
    public function __construct(
        public string $kind,
        public array $sql = [],
        public ?array $answer = null,
        public ?string $foundRowsSql = null,
        public ?string $insertIdColumn = null,
        public string $affected = 'rows',
        public bool $catalogChanged = false,
        public bool $atomic = false
    ) {
    }

    /** @param array<int, array<int, ?string>> $rows */
    public static function answer(array $columns, array $rows): self
    {
        return new self('answer', [], ['columns' => $columns, 'rows' => $rows]);
    }
}
