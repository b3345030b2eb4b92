<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * What MySQL would have said for an error PostgreSQL raised: WordPress and plugins read
 * wpdb::$last_error (a duplicate key on insert, a missing table during install). Errors
 * without a MySQL counterpart keep PostgreSQL's own sentence and its SQLSTATE.
 */
final class MysqlErrorText
{
    /** @return array{0:int,1:string} MySQL error number and text */
    public static function of(PgFailure $failure, string $database, ?Catalog $catalog = null): array
    {
        $message = $failure->getMessage();
        switch ($failure->sqlstate) {
            case '23505':
                return [1062, self::duplicate($failure, $catalog)];
            case '42P01':
                $table = self::quoted($message) ?? $failure->table;
                return [1146, "Table '$database.$table' doesn't exist"];
            case '42703':
                $column = self::quoted($message) ?? $failure->column;
                return [1054, "Unknown column '$column' in 'field list'"];
            case '23502':
                return [1048, "Column '" . ($failure->column !== '' ? $failure->column : (self::quoted($message) ?? '')) . "' cannot be null"];
            case '22001':
                return [1406, "Data too long for column '" . $failure->column . "' at row 1"];
            case '42P07':
                return [1050, "Table '" . (self::quoted($message) ?? $failure->table) . "' already exists"];
            case '40P01':
                return [1213, 'Deadlock found when trying to get lock; try restarting transaction'];
            case '55P03':
                return [1205, 'Lock wait timeout exceeded; try restarting transaction'];
            case '57014':
                return [1317, 'Query execution was interrupted'];
            case '22012':
                // MySQL answers NULL for a division by zero; an error here is the translator's gap.
                return [1365, 'Division by 0'];
        }
        if ($failure->isConnectionLost()) {
            return [2006, 'MySQL server has gone away'];
        }
        $state = $failure->sqlstate !== '' ? " (PostgreSQL $failure->sqlstate)" : '';
        return [1105, $message . $state];
    }

    /** MariaDB: Duplicate entry 'a-b' for key 'name' (the values of a composite key joined by '-'). */
    private static function duplicate(PgFailure $failure, ?Catalog $catalog): string
    {
        $entry = '';
        if (preg_match('/^Key \((.*)\)=\((.*)\) already exists\.?$/s', $failure->detail, $m)) {
            $entry = self::joinValues($m[1], $m[2]);
        }
        return "Duplicate entry '$entry' for key '" . self::keyName($failure, $catalog) . "'";
    }

    /** PostgreSQL lists a composite key's values comma-separated; MySQL joins them by '-'. */
    private static function joinValues(string $columns, string $values): string
    {
        $count = count(str_getcsv($columns, ',', '"'));
        if ($count <= 1) {
            return $values;
        }
        $parts = explode(', ', $values);
        return count($parts) === $count ? implode('-', $parts) : $values;
    }

    private static function keyName(PgFailure $failure, ?Catalog $catalog): string
    {
        $name = $failure->constraint;
        // The catalogue knows the MySQL name behind each PostgreSQL index name.
        $table = $catalog?->table($failure->table);
        foreach ($table['indexes'] ?? [] as $index) {
            if (($index['pg'] ?? null) === $name && $name !== '') {
                return $index['kind'] === 'PRIMARY' ? 'PRIMARY' : (string) $index['name'];
            }
        }
        if ($name === '' || str_ends_with($name, '_pkey')) {
            return 'PRIMARY';
        }
        $table = $failure->table;
        // Index names in PostgreSQL are per schema, so they carry their table's name in front.
        foreach ([$table . '__', $table . '_'] as $prefix) {
            if ($table !== '' && str_starts_with($name, $prefix) && strlen($name) > strlen($prefix)) {
                return substr($name, strlen($prefix));
            }
        }
        return $name;
    }

    private static function quoted(string $message): ?string
    {
        return preg_match('/"([^"]+)"/', $message, $m) ? $m[1] : null;
    }
}
