<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * The MySQL schema of the project's tables as MySQL would report it: names and their case,
 * types with lengths, unsigned, nullability, defaults, auto_increment, keys with their names
 * and prefix lengths, table options. PostgreSQL's own catalogue cannot say these (bigint(20)
 * unsigned, utf8mb4_unicode_520_ci, meta_key(191)), and WordPress reads them back through
 * DESCRIBE, SHOW FULL COLUMNS and SHOW INDEX.
 *
 * Stored as one JSON row per table in the table berth_mysql_catalog of the project's schema,
 * written by the same statements as the DDL that changes it. A table definition is an array:
 *   name, columns: [{name, type, length, scale, unsigned, zerofill, values, nullable,
 *   default (?string: the default as DESCRIBE shows it), defaultExpr (bool: a function such as
 *   current_timestamp()), autoIncrement, charset, collation, onUpdate, comment}],
 *   indexes: [{name, kind 'PRIMARY'|'UNIQUE'|'INDEX', columns: [{name, length, desc}], pg}],
 *   options: {ENGINE, CHARSET, COLLATE, ...}
 */
final class Catalog
{
    public const TABLE = 'berth_mysql_catalog';

    /** MySQL's display widths when a CREATE TABLE gives none (MariaDB's SHOW shapes). */
    private const WIDTHS = [
        'tinyint' => [4, 3], 'smallint' => [6, 5], 'mediumint' => [9, 8], 'int' => [11, 10],
        'bigint' => [20, 20],
    ];

    /** @var array<string, array> */
    private array $tables = [];

    /** @param array<int, mixed> $rows rows of loadSql(): each a JSON string, or an array whose 'definition' or first value is one */
    public static function fromRows(array $rows): self
    {
        $catalog = new self();
        foreach ($rows as $row) {
            $json = is_array($row) ? ($row['definition'] ?? reset($row)) : $row;
            if (!is_string($json)) {
                throw new \InvalidArgumentException('a catalogue row holds no definition');
            }
            $table = json_decode($json, true, 64, JSON_THROW_ON_ERROR);
            $catalog->tables[$table['name']] = $table;
        }
        return $catalog;
    }

    public static function loadSql(): string
    {
        return 'SELECT definition FROM ' . self::TABLE . ' ORDER BY name';
    }

    /** The statement creating the catalogue table (part of Translator::setupSql()). */
    public static function createSql(): string
    {
        return 'CREATE TABLE IF NOT EXISTS ' . self::TABLE
            . ' (name text COLLATE "C" PRIMARY KEY, definition text NOT NULL)';
    }

    public function table(string $name): ?array
    {
        return $this->tables[$name] ?? null;
    }

    public function has(string $name): bool
    {
        return isset($this->tables[$name]);
    }

    /** @return string[] table names, sorted as MySQL lists them */
    public function tableNames(): array
    {
        $names = array_keys($this->tables);
        sort($names, SORT_STRING);
        return $names;
    }

    public function put(array $table): void
    {
        $this->tables[$table['name']] = $table;
    }

    public function remove(string $name): void
    {
        unset($this->tables[$name]);
    }

    /** The column of $table called $name, compared case-insensitively as MySQL does. */
    public static function column(array $table, string $name): ?array
    {
        foreach ($table['columns'] as $column) {
            if (strcasecmp($column['name'], $name) === 0) {
                return $column;
            }
        }
        return null;
    }

    public static function index(array $table, string $name): ?array
    {
        foreach ($table['indexes'] as $index) {
            if (strcasecmp($index['name'], $name) === 0) {
                return $index;
            }
        }
        return null;
    }

    /** @return string[] the primary key's column names, [] when none */
    public static function primaryKey(array $table): array
    {
        foreach ($table['indexes'] as $index) {
            if ($index['kind'] === 'PRIMARY') {
                return array_column($index['columns'], 'name');
            }
        }
        return [];
    }

    public static function autoIncrementColumn(array $table): ?array
    {
        foreach ($table['columns'] as $column) {
            if ($column['autoIncrement']) {
                return $column;
            }
        }
        return null;
    }

    /** The statement that stores $table's definition in the catalogue table. */
    public static function upsertSql(array $table): string
    {
        try {
            $json = json_encode($table, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        } catch (\JsonException $e) {
            // A name, comment or value of the definition that is not UTF-8 (JSON holds UTF-8 only).
            throw new TranslateError('the table definition is not valid UTF-8 (' . $e->getMessage() . ')', $e);
        }
        return 'INSERT INTO ' . self::TABLE . ' (name, definition) VALUES ('
            . Sql::literal($table['name']) . ', ' . Sql::literal($json) . ')'
            . ' ON CONFLICT (name) DO UPDATE SET definition = EXCLUDED.definition';
    }

    public static function deleteSql(string $name): string
    {
        return 'DELETE FROM ' . self::TABLE . ' WHERE name = ' . Sql::literal($name);
    }

    /** The type as MySQL shows it: 'bigint(20) unsigned', 'varchar(191)', 'longtext'. */
    public static function mysqlType(array $column): string
    {
        $type = $column['type'];
        $length = $column['length'];
        if (isset(self::WIDTHS[$type]) && $length === null) {
            $length = self::WIDTHS[$type][$column['unsigned'] ? 1 : 0];
        }
        if ($type === 'enum' || $type === 'set') {
            $members = array_map(static fn (string $v): string => "'" . str_replace("'", "''", $v) . "'", $column['values'] ?? []);
            $text = $type . '(' . implode(',', $members) . ')';
        } elseif ($length !== null) {
            $text = $type . '(' . $length . ($column['scale'] !== null ? ',' . $column['scale'] : '') . ')';
        } elseif (in_array($type, ['decimal', 'numeric'], true)) {
            $text = 'decimal(10,0)';
        } else {
            $text = $type;
        }
        if ($column['unsigned']) {
            $text .= ' unsigned';
        }
        if ($column['zerofill']) {
            $text .= ' zerofill';
        }
        return $text;
    }

    /**
     * How the translator treats values of the column: 'int', 'num' (exact decimal), 'float',
     * 'text', 'datetime', 'date', 'time'.
     */
    public static function category(array $column): string
    {
        return match ($column['type']) {
            'tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'year', 'bit', 'bool', 'boolean', 'serial' => 'int',
            'decimal', 'numeric', 'dec', 'fixed' => 'num',
            'float', 'double', 'real', 'double precision' => 'float',
            'datetime', 'timestamp' => 'datetime',
            'date' => 'date',
            'time' => 'time',
            default => 'text',
        };
    }

    /** True for the types whose values compare case-insensitively (string types not _bin). */
    public static function isText(array $column): bool
    {
        return self::category($column) === 'text';
    }

    /** The column's collation as SHOW FULL COLUMNS shows it (null for non-text columns). */
    public static function collation(array $table, array $column): ?string
    {
        if (!self::isText($column)) {
            return null;
        }
        if (in_array($column['type'], ['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob'], true)) {
            return null;
        }
        return $column['collation'] ?? ($table['options']['COLLATE'] ?? 'utf8mb4_unicode_520_ci');
    }
}
