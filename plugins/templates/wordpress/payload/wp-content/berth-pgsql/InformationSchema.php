<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * information_schema.TABLES, COLUMNS and STATISTICS for the project's database, built from the
 * catalogue (MySQL's names, types and keys) as derived tables; TABLES takes PostgreSQL's row
 * estimates and sizes (site health reads the database size there). Plugins probe columns and
 * indexes through these views.
 */
final class InformationSchema
{
    private const TYPES = [
        'TABLES' => [
            'TABLE_CATALOG' => 'text', 'TABLE_SCHEMA' => 'text', 'TABLE_NAME' => 'text', 'TABLE_TYPE' => 'text',
            'ENGINE' => 'text', 'VERSION' => 'int', 'ROW_FORMAT' => 'text', 'TABLE_ROWS' => 'int',
            'AVG_ROW_LENGTH' => 'int', 'DATA_LENGTH' => 'int', 'MAX_DATA_LENGTH' => 'int', 'INDEX_LENGTH' => 'int',
            'DATA_FREE' => 'int', 'AUTO_INCREMENT' => 'int', 'CREATE_TIME' => 'datetime', 'UPDATE_TIME' => 'datetime',
            'CHECK_TIME' => 'datetime', 'TABLE_COLLATION' => 'text', 'CHECKSUM' => 'int', 'CREATE_OPTIONS' => 'text',
            'TABLE_COMMENT' => 'text',
        ],
        'COLUMNS' => [
            'TABLE_CATALOG' => 'text', 'TABLE_SCHEMA' => 'text', 'TABLE_NAME' => 'text', 'COLUMN_NAME' => 'text',
            'ORDINAL_POSITION' => 'int', 'COLUMN_DEFAULT' => 'text', 'IS_NULLABLE' => 'text', 'DATA_TYPE' => 'text',
            'CHARACTER_MAXIMUM_LENGTH' => 'int', 'CHARACTER_OCTET_LENGTH' => 'int', 'NUMERIC_PRECISION' => 'int',
            'NUMERIC_SCALE' => 'int', 'DATETIME_PRECISION' => 'int', 'CHARACTER_SET_NAME' => 'text',
            'COLLATION_NAME' => 'text', 'COLUMN_TYPE' => 'text', 'COLUMN_KEY' => 'text', 'EXTRA' => 'text',
            'PRIVILEGES' => 'text', 'COLUMN_COMMENT' => 'text', 'IS_GENERATED' => 'text', 'GENERATION_EXPRESSION' => 'text',
        ],
        'STATISTICS' => [
            'TABLE_CATALOG' => 'text', 'TABLE_SCHEMA' => 'text', 'TABLE_NAME' => 'text', 'NON_UNIQUE' => 'int',
            'INDEX_SCHEMA' => 'text', 'INDEX_NAME' => 'text', 'SEQ_IN_INDEX' => 'int', 'COLUMN_NAME' => 'text',
            'COLLATION' => 'text', 'CARDINALITY' => 'int', 'SUB_PART' => 'int', 'PACKED' => 'text', 'NULLABLE' => 'text',
            'INDEX_TYPE' => 'text', 'COMMENT' => 'text', 'INDEX_COMMENT' => 'text',
        ],
    ];

    /** @return array<int, array{name: string, type: string, nullable: bool}>|null the view's columns, null for others */
    public static function columns(string $view): ?array
    {
        $types = self::TYPES[strtoupper($view)] ?? null;
        if ($types === null) {
            return null;
        }
        $columns = [];
        foreach ($types as $name => $type) {
            $columns[] = ['name' => $name, 'type' => $type, 'nullable' => true];
        }
        return $columns;
    }

    /** The view as a PostgreSQL query. */
    public static function sql(string $view, Catalog $catalog, string $database): string
    {
        $view = strtoupper($view);
        if ($view === 'TABLES') {
            return 'SELECT \'def\'::text AS "TABLE_CATALOG", ' . Sql::literal($database) . '::text COLLATE berth_mysql_ci AS "TABLE_SCHEMA", '
                . 'k.name::text COLLATE berth_mysql_ci AS "TABLE_NAME", \'BASE TABLE\'::text AS "TABLE_TYPE", \'InnoDB\'::text AS "ENGINE", '
                . '10 AS "VERSION", \'Dynamic\'::text AS "ROW_FORMAT", greatest(c.reltuples, 0)::bigint AS "TABLE_ROWS", '
                . '0::bigint AS "AVG_ROW_LENGTH", pg_table_size(c.oid) AS "DATA_LENGTH", 0::bigint AS "MAX_DATA_LENGTH", '
                . 'pg_indexes_size(c.oid) AS "INDEX_LENGTH", 0::bigint AS "DATA_FREE", NULL::bigint AS "AUTO_INCREMENT", '
                . 'NULL::timestamp AS "CREATE_TIME", NULL::timestamp AS "UPDATE_TIME", NULL::timestamp AS "CHECK_TIME", '
                . "(k.definition::json->'options'->>'COLLATE') AS \"TABLE_COLLATION\", NULL::bigint AS \"CHECKSUM\", "
                . '\'\'::text AS "CREATE_OPTIONS", \'\'::text AS "TABLE_COMMENT" '
                . 'FROM ' . Catalog::TABLE . ' AS k JOIN pg_class AS c ON c.oid = to_regclass(quote_ident(k.name))';
        }
        $rows = [];
        foreach ($catalog->tableNames() as $name) {
            $table = $catalog->table($name);
            if ($view === 'COLUMNS') {
                foreach ($table['columns'] as $i => $c) {
                    $rows[] = self::columnRow($database, $table, $c, $i + 1);
                }
            } else {
                foreach ($table['indexes'] as $index) {
                    foreach ($index['columns'] as $seq => $part) {
                        $column = Catalog::column($table, $part['name']);
                        $rows[] = ['def', $database, $name, $index['kind'] === 'INDEX' ? 1 : 0, $database, $index['name'], $seq + 1,
                            $part['name'], $part['desc'] ? 'D' : 'A', 0, $part['length'], null,
                            $column !== null && $column['nullable'] ? 'YES' : '', 'BTREE', '', ''];
                    }
                }
            }
        }
        return self::values(self::TYPES[$view], $rows);
    }

    private static function columnRow(string $database, array $table, array $c, int $position): array
    {
        $category = Catalog::category($c);
        $isText = $category === 'text';
        $maxLength = match (true) {
            in_array($c['type'], ['char', 'varchar', 'binary', 'varbinary'], true) => $c['length'],
            $c['type'] === 'tinytext' || $c['type'] === 'tinyblob' => 255,
            $c['type'] === 'text' || $c['type'] === 'blob' => 65535,
            $c['type'] === 'mediumtext' || $c['type'] === 'mediumblob' => 16777215,
            $c['type'] === 'longtext' || $c['type'] === 'longblob' => 4294967295,
            default => null,
        };
        $precision = match ($c['type']) {
            'tinyint' => 3, 'smallint' => 5, 'mediumint' => 7, 'int' => 10, 'bigint' => $c['unsigned'] ? 20 : 19,
            'decimal' => $c['length'], 'float' => 12, 'double' => 22, default => null,
        };
        $scale = $category === 'int' ? 0 : ($c['type'] === 'decimal' ? $c['scale'] : null);
        $collation = Catalog::collation($table, $c);
        $key = '';
        foreach ($table['indexes'] as $index) {
            if (strcasecmp($index['columns'][0]['name'], $c['name']) === 0 || ($index['kind'] === 'PRIMARY' && in_array(strtolower($c['name']), array_map('strtolower', array_column($index['columns'], 'name')), true))) {
                $key = $index['kind'] === 'PRIMARY' ? 'PRI' : ($key === '' ? ($index['kind'] === 'UNIQUE' && count($index['columns']) === 1 ? 'UNI' : 'MUL') : $key);
                if ($key === 'PRI') {
                    break;
                }
            }
        }
        $default = $c['default'];
        if ($default !== null && !$c['defaultExpr'] && $isText) {
            $default = "'" . str_replace("'", "''", $default) . "'";   // MariaDB quotes string defaults here
        }
        return [
            'def', $database, $table['name'], $c['name'], $position, $c['nullable'] && $default === null ? 'NULL' : $default,
            $c['nullable'] ? 'YES' : 'NO', $c['type'], $maxLength, $maxLength !== null && in_array($c['type'], ['char', 'varchar'], true) ? $maxLength * 4 : $maxLength,
            $precision, $scale, in_array($category, ['datetime', 'time'], true) ? (int) ($c['length'] ?? 0) : null,
            $collation !== null ? explode('_', $collation)[0] : null, $collation, Catalog::mysqlType($c), $key,
            $c['autoIncrement'] ? 'auto_increment' : (($c['onUpdate'] ?? null) !== null ? 'on update ' . $c['onUpdate'] : ''),
            'select,insert,update,references', (string) ($c['comment'] ?? ''), 'NEVER', null,
        ];
    }

    /** Rows as a derived table with typed, named columns. */
    private static function values(array $types, array $rows): string
    {
        $names = array_keys($types);
        // information_schema's names compare and sort case-insensitively in MySQL.
        $cast = static fn (string $type): string => $type === 'int' ? 'bigint' : ($type === 'datetime' ? 'timestamp' : 'text COLLATE berth_mysql_ci');
        $first = [];
        foreach ($names as $i => $name) {
            $first[] = 'NULL::' . $cast($types[$name]) . ' AS ' . Sql::ident($name);
        }
        $sql = 'SELECT ' . implode(', ', $first) . ' WHERE FALSE';
        foreach ($rows as $row) {
            $values = [];
            foreach ($names as $i => $name) {
                $v = $row[$i];
                $values[] = $v === null ? 'NULL' : ($types[$name] === 'int' ? (string) (int) $v : Sql::literal((string) $v));
            }
            $sql .= ' UNION ALL SELECT ' . implode(', ', $values);
        }
        return $sql;
    }
}
