<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * A result set in the shape mysqli gives it to wpdb: rows as objects keyed by the MySQL
 * column names, every value a string (NULL stays null), PostgreSQL's booleans as '1'/'0',
 * '-infinity' dates as MySQL's zero date, and Nul::STANDIN turned back into NUL bytes.
 * Column descriptions (mysqli's field objects) are built only when asked for.
 */
final class Results
{
    private const BOOL = 16;
    private const BYTEA = 17;
    private const DATE = 1082;
    private const TIMESTAMP = 1114;
    private const TIMESTAMPTZ = 1184;

    /** mysqli's MYSQLI_TYPE_* numbers, by PostgreSQL type oid. */
    private const MYSQLI_TYPES = [
        16 => 1, 21 => 2, 23 => 3, 20 => 8, 26 => 8, 700 => 4, 701 => 5, 1700 => 246,
        1082 => 10, 1083 => 11, 1114 => 12, 1184 => 12, 17 => 252, 25 => 252,
    ];
    private const DISPLAY_LENGTHS = [1 => 4, 2 => 6, 3 => 11, 8 => 20, 4 => 12, 5 => 22, 246 => 65, 10 => 10, 11 => 10, 12 => 19];
    private const VAR_STRING = 253;
    private const NUM_FLAG = 32768;
    private const BLOB_FLAG = 16;
    private const BINARY_FLAG = 128;

    /**
     * @param list<\stdClass>        $rows
     * @param list<string>           $names
     * @param list<int>              $typeOids 0 when unknown (answers)
     * @param list<int>              $tableOids 0 when the column is no table's
     */
    private function __construct(
        public readonly array $rows,
        public readonly array $names,
        private readonly array $typeOids,
        private readonly array $tableOids,
    ) {
    }

    public static function empty(): self
    {
        return new self([], [], [], []);
    }

    public static function fromPg(\PgSql\Result $result): self
    {
        $count = pg_num_fields($result);
        $names = [];
        $types = [];
        $tables = [];
        $special = [];
        for ($i = 0; $i < $count; $i++) {
            $names[] = pg_field_name($result, $i);
            $oid = (int) pg_field_type_oid($result, $i);
            $types[] = $oid;
            $tables[] = (int) pg_field_table($result, $i, true);
            if (in_array($oid, [self::BOOL, self::BYTEA, self::DATE, self::TIMESTAMP, self::TIMESTAMPTZ], true)) {
                $special[$i] = $oid;
            }
        }
        $rows = [];
        $all = $count > 0 ? pg_fetch_all($result, PGSQL_NUM) : [];
        foreach ($all as $values) {
            foreach ($special as $i => $oid) {
                if ($values[$i] !== null) {
                    $values[$i] = self::convert($oid, $values[$i]);
                }
            }
            $row = new \stdClass();
            foreach ($values as $i => $value) {
                if ($value !== null && str_contains($value, Nul::STANDIN)) {
                    $value = str_replace(Nul::STANDIN, "\0", $value);
                }
                // As mysqli_fetch_object: a later column of the same name wins.
                $row->{$names[$i]} = $value;
            }
            $rows[] = $row;
        }
        return new self($rows, $names, $types, $tables);
    }

    /**
     * An answer the translator gave without asking PostgreSQL (SHOW, DESCRIBE, @@variables).
     *
     * @param array{columns: list<string>, rows: list<list<string|null>>} $answer
     */
    public static function fromAnswer(array $answer): self
    {
        $names = array_values(array_map('strval', $answer['columns'] ?? []));
        $rows = [];
        foreach ($answer['rows'] ?? [] as $values) {
            $row = new \stdClass();
            foreach (array_values($values) as $i => $value) {
                if ($value !== null) {
                    $value = str_replace(Nul::STANDIN, "\0", (string) $value);
                }
                $row->{$names[$i] ?? (string) $i} = $value;
            }
            $rows[] = $row;
        }
        $zeros = array_fill(0, count($names), 0);
        return new self($rows, $names, $zeros, $zeros);
    }

    public function count(): int
    {
        return count($this->rows);
    }

    /** The value of a column in a row (after conversion), null when absent. */
    public function value(int $row, string $column): ?string
    {
        $object = $this->rows[$row] ?? null;
        return $object !== null && property_exists($object, $column) ? $object->{$column} : null;
    }

    /**
     * mysqli's field objects (mysqli_fetch_field) for wpdb::$col_info.
     *
     * @param callable(list<int>): array<int,string> $tableNames oid => table name
     * @return list<\stdClass>
     */
    public function columnInfo(string $database, callable $tableNames): array
    {
        $oids = array_values(array_unique(array_filter($this->tableOids)));
        $tables = $oids === [] ? [] : $tableNames($oids);
        $info = [];
        foreach ($this->names as $i => $name) {
            $oid = $this->typeOids[$i] ?? 0;
            $type = self::MYSQLI_TYPES[$oid] ?? self::VAR_STRING;
            $maxLength = 0;
            foreach ($this->rows as $row) {
                $value = $row->{$name} ?? null;
                if ($value !== null) {
                    $maxLength = max($maxLength, strlen($value));
                }
            }
            $numeric = isset(self::DISPLAY_LENGTHS[$type]) && !in_array($type, [10, 11, 12], true);
            $table = $tables[$this->tableOids[$i] ?? 0] ?? '';
            $field = new \stdClass();
            $field->name = $name;
            $field->orgname = $table === '' ? '' : $name;
            $field->table = $table;
            $field->orgtable = $table;
            $field->def = '';
            $field->db = $table === '' ? '' : $database;
            $field->catalog = 'def';
            $field->max_length = $maxLength;
            $field->length = self::DISPLAY_LENGTHS[$type] ?? ($type === 252 ? 4294967295 : 1020);
            $field->charsetnr = $numeric ? 63 : ($oid === self::BYTEA ? 63 : 224);
            $field->flags = ($numeric ? self::NUM_FLAG : 0)
                | ($type === 252 ? self::BLOB_FLAG : 0)
                | ($oid === self::BYTEA ? self::BINARY_FLAG : 0);
            $field->type = $type;
            $field->decimals = in_array($type, [4, 5], true) ? 31 : 0;
            $info[] = $field;
        }
        return $info;
    }

    private static function convert(int $oid, string $value): string
    {
        switch ($oid) {
            case self::BOOL:
                return $value === 't' ? '1' : '0';
            case self::BYTEA:
                return pg_unescape_bytea($value);
            case self::DATE:
                return $value === '-infinity' ? '0000-00-00' : $value;
            default:
                return $value === '-infinity' ? '0000-00-00 00:00:00' : $value;
        }
    }
}
