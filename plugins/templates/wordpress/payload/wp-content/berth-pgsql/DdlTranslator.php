<?php

declare(strict_types=1);

namespace Berth\Pg;

use Berth\Pg\Ast;

/**
 * CREATE TABLE, ALTER TABLE (the forms of WordPress's dbDelta and upgrades), DROP TABLE and
 * TRUNCATE. Each writes the PostgreSQL DDL and, in the same statement list (run atomically),
 * the table's new catalogue row; the in-memory Catalog is updated at once.
 *
 * Types: integers by range (unsigned widens: int unsigned is bigint; bigint unsigned stays
 * bigint), auto_increment as an identity, datetime as timestamp(0) with the zero date as
 * -infinity, strings as varchar/text under the case-insensitive collation berth_mysql_ci
 * (_bin collations and binary types: "C"). NOT NULL columns without a default get MySQL's
 * implicit default ('' / 0 / zero date) so that inserts leaving them out work as in MySQL's
 * non-strict mode. Key prefix lengths: dropped where the whole column fits a B-tree entry
 * (varchar up to 500 characters, tinytext), else the index is on left(col, n).
 */
final class DdlTranslator
{
    private const TEXT_TYPES = ['char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext', 'enum', 'set', 'json'];
    private const BINARY_TYPES = ['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob'];

    public function __construct(private Catalog $catalog, private string $database)
    {
    }

    public function setCatalog(Catalog $catalog): void
    {
        $this->catalog = $catalog;
    }

    // ------------------------------------------------------------------ columns

    /** The catalogue's record of a column definition. */
    public static function column(Ast\ColumnDef $d): array
    {
        $type = strtolower($d->type);
        $length = $d->length;
        $type = match ($type) {
            'integer' => 'int',
            'bool', 'boolean' => 'tinyint',
            'dec', 'numeric', 'fixed' => 'decimal',
            'double precision', 'real' => 'double',
            'character varying' => 'varchar',
            'character' => 'char',
            default => $type,
        };
        $collation = $d->collation;
        if ($type === 'json') {
            // MariaDB's JSON is LONGTEXT with a binary collation (and a json_valid check).
            $type = 'longtext';
            $collation ??= 'utf8mb4_bin';
        }
        if ((strtolower($d->type) === 'bool' || strtolower($d->type) === 'boolean') && $length === null) {
            $length = 1;
        }
        if ($type === 'decimal' && $length === null) {
            $length = 10;
        }
        if ($type === 'decimal' && $d->scale === null) {
            $scale = 0;
        }
        $default = null;
        $defaultExpr = false;
        if ($d->default !== null) {
            [$default, $defaultExpr] = self::defaultText($d->default);
        }
        $onUpdate = null;
        if ($d->onUpdate !== null) {
            $onUpdate = 'current_timestamp()';
        }
        return [
            'name' => $d->name,
            'type' => $type,
            'length' => $length,
            'scale' => $scale ?? $d->scale,
            'unsigned' => $d->unsigned,
            'zerofill' => $d->zerofill,
            'values' => $d->values,
            'nullable' => !($d->nullable === false || $d->primaryKey || $d->autoIncrement),
            'default' => $default,
            'defaultExpr' => $defaultExpr,
            'autoIncrement' => $d->autoIncrement,
            'charset' => $d->charset,
            'collation' => $collation,
            'onUpdate' => $onUpdate,
            'comment' => $d->comment,
        ];
    }

    /** @return array{0: ?string, 1: bool} the default as SHOW COLUMNS shows it, and whether it is a function */
    private static function defaultText(Ast\Expr $e): array
    {
        if ($e instanceof Ast\Literal) {
            return match ($e->kind) {
                'null' => [null, false],
                'bool' => [$e->value, false],
                'hex' => [(string) hex2bin(strlen($e->value) % 2 ? '0' . $e->value : $e->value), false],
                default => [$e->value, false],
            };
        }
        if ($e instanceof Ast\Unary && $e->op === '-' && $e->operand instanceof Ast\Literal) {
            return ['-' . $e->operand->value, false];
        }
        if ($e instanceof Ast\FunctionCall && in_array($e->name, ['CURRENT_TIMESTAMP', 'NOW', 'LOCALTIMESTAMP', 'LOCALTIME'], true)) {
            return ['current_timestamp()', true];
        }
        if ($e instanceof Ast\FunctionCall && in_array($e->name, ['CURRENT_DATE', 'CURDATE'], true)) {
            return ['curdate()', true];
        }
        throw new TranslateError('a column DEFAULT that is not a literal or CURRENT_TIMESTAMP');
    }

    public static function pgType(array $c): string
    {
        $t = $c['type'];
        return match ($t) {
            'tinyint', 'year' => 'smallint',
            'smallint' => $c['unsigned'] ? 'integer' : 'smallint',
            'mediumint' => 'integer',
            'int' => $c['unsigned'] ? 'bigint' : 'integer',
            'bigint', 'bit', 'serial' => 'bigint',
            'decimal' => 'numeric(' . ($c['length'] ?? 10) . ', ' . ($c['scale'] ?? 0) . ')',
            'float' => 'real',
            'double' => 'double precision',
            'datetime', 'timestamp' => 'timestamp(' . min((int) ($c['length'] ?? 0), 6) . ')',
            'date' => 'date',
            'time' => 'time(' . min((int) ($c['length'] ?? 0), 6) . ')',
            'char', 'varchar', 'binary', 'varbinary' => $c['length'] !== null ? 'varchar(' . max(1, $c['length']) . ')' : 'text',
            'tinytext', 'text', 'mediumtext', 'longtext', 'enum', 'set', 'json',
            'tinyblob', 'blob', 'mediumblob', 'longblob' => 'text',
            default => throw new TranslateError('the column type ' . $t),
        };
    }

    /** The PostgreSQL collation clause of a column ('' for non-text). */
    public static function pgCollation(array $c, array $tableOptions): string
    {
        if (in_array($c['type'], self::BINARY_TYPES, true)) {
            return ' COLLATE "C"';
        }
        if (!in_array($c['type'], self::TEXT_TYPES, true)) {
            return '';
        }
        $collation = strtolower((string) ($c['collation'] ?? ($tableOptions['COLLATE'] ?? '')));
        return str_ends_with($collation, '_bin') || $collation === 'binary' ? ' COLLATE "C"' : ' COLLATE berth_mysql_ci';
    }

    /** MySQL's implicit default of a NOT NULL column (non-strict inserts that leave it out). */
    private static function implicitDefault(array $c): string
    {
        return match (Catalog::category($c)) {
            'int', 'num', 'float' => '0',
            'datetime', 'date' => "'-infinity'",
            'time' => "'00:00:00'",
            default => $c['type'] === 'enum' && $c['values'] ? Sql::literal($c['values'][0]) : "''",
        };
    }

    /** The PostgreSQL DEFAULT of a column, null for none. */
    public static function pgDefault(array $c): ?string
    {
        if ($c['autoIncrement']) {
            return null;
        }
        if ($c['default'] === null) {
            return $c['nullable'] ? null : self::implicitDefault($c);
        }
        if ($c['defaultExpr']) {
            return $c['default'] === 'curdate()' ? "(CURRENT_TIMESTAMP AT TIME ZONE 'UTC')::date" : ExpressionWriter::NOW;
        }
        return match (Catalog::category($c)) {
            'int', 'num', 'float' => ExpressionWriter::numberSql(ExpressionWriter::mysqlNumber($c['default'])),
            'datetime', 'date' => Sql::literal(ExpressionWriter::mysqlDatetime($c['default'], true) ?? '-infinity'),
            default => Sql::literal($c['default']),
        };
    }

    private static function pgColumn(array $c, array $options, ?int $start = null): string
    {
        $sql = Sql::ident($c['name']) . ' ' . self::pgType($c) . self::pgCollation($c, $options);
        if (!$c['nullable']) {
            $sql .= ' NOT NULL';
        }
        $default = self::pgDefault($c);
        if ($default !== null) {
            $sql .= ' DEFAULT ' . $default;
        }
        if ($c['autoIncrement']) {
            $sql .= ' GENERATED BY DEFAULT AS IDENTITY' . ($start !== null && $start > 1 ? ' (START WITH ' . $start . ')' : '');
        }
        return $sql;
    }

    // ------------------------------------------------------------------ indexes

    /** True when a prefix length can be dropped: the whole column fits a B-tree entry. */
    public static function prefixIsWholeColumn(array $column, ?int $length): bool
    {
        if ($length === null) {
            return true;
        }
        if (in_array($column['type'], ['char', 'varchar', 'binary', 'varbinary'], true)) {
            return $column['length'] !== null && ($column['length'] <= 500 || $length >= $column['length']);
        }
        return $column['type'] === 'tinytext' || $column['type'] === 'tinyblob';
    }

    private static function pgIndexName(string $table, string $index): string
    {
        return Sql::shortName($table . '__' . $index);
    }

    /** @param array<int, array{name: string, length: ?int, desc: bool}> $parts */
    private static function indexParts(array $table, array $parts): string
    {
        $sql = [];
        foreach ($parts as $part) {
            $column = Catalog::column($table, $part['name'])
                ?? throw new MysqlError(1072, "Key column '" . $part['name'] . "' doesn't exist in table");
            $name = Sql::ident($column['name']);
            $sql[] = (self::prefixIsWholeColumn($column, $part['length']) ? $name : '(left(' . $name . ', ' . (int) $part['length'] . '))')
                . ($part['desc'] ? ' DESC' : '');
        }
        return implode(', ', $sql);
    }

    /** The catalogue record of an index, named the way MySQL names an unnamed one. */
    private static function indexRecord(array $table, Ast\IndexDef $d): array
    {
        if ($d->kind === 'FULLTEXT' || $d->kind === 'SPATIAL') {
            throw new TranslateError($d->kind . ' indexes');
        }
        $parts = [];
        foreach ($d->columns as $part) {
            $column = Catalog::column($table, $part['name'])
                ?? throw new MysqlError(1072, "Key column '" . $part['name'] . "' doesn't exist in table");
            $parts[] = ['name' => $column['name'], 'length' => $part['length'] ?? null, 'desc' => (bool) ($part['desc'] ?? false)];
        }
        if ($d->kind === 'PRIMARY') {
            if (Catalog::index($table, 'PRIMARY') !== null) {
                throw new MysqlError(1068, 'Multiple primary key defined');
            }
            $name = 'PRIMARY';
        } else {
            $name = $d->name;
            if ($name === null) {
                $base = $parts[0]['name'];
                $name = $base;
                for ($i = 2; Catalog::index($table, $name) !== null; $i++) {
                    $name = $base . '_' . $i;
                }
            } elseif (Catalog::index($table, $name) !== null) {
                throw new MysqlError(1061, "Duplicate key name '" . $name . "'");
            }
        }
        return ['name' => $name, 'kind' => $d->kind === 'INDEX' ? 'INDEX' : $d->kind, 'columns' => $parts,
            'pg' => self::pgIndexName($table['name'], $name)];
    }

    private static function createIndexSql(array $table, array $index): string
    {
        if ($index['kind'] === 'PRIMARY') {
            return 'ALTER TABLE ' . Sql::ident($table['name']) . ' ADD CONSTRAINT ' . Sql::ident($index['pg'])
                . ' PRIMARY KEY (' . implode(', ', array_map(static fn (array $p): string => Sql::ident($p['name']), $index['columns'])) . ')';
        }
        return 'CREATE ' . ($index['kind'] === 'UNIQUE' ? 'UNIQUE ' : '') . 'INDEX ' . Sql::ident($index['pg'])
            . ' ON ' . Sql::ident($table['name']) . ' (' . self::indexParts($table, $index['columns']) . ')';
    }

    private static function dropIndexSql(array $table, array $index): string
    {
        if ($index['kind'] === 'PRIMARY') {
            return 'ALTER TABLE ' . Sql::ident($table['name']) . ' DROP CONSTRAINT IF EXISTS ' . Sql::ident($index['pg']);
        }
        return 'DROP INDEX IF EXISTS ' . Sql::ident($index['pg']);
    }

    // ------------------------------------------------------------------ statements

    public function create(Ast\CreateTable $s): Translation
    {
        if ($s->temporary) {
            throw new TranslateError('CREATE TEMPORARY TABLE');
        }
        if ($this->catalog->has($s->name)) {
            if ($s->ifNotExists) {
                return new Translation('ddl');
            }
            throw MysqlError::tableExists($s->name);
        }
        $options = $s->options;
        if (isset($options['DEFAULT CHARSET'])) {
            $options['CHARSET'] = $options['DEFAULT CHARSET'];
            unset($options['DEFAULT CHARSET']);
        }
        if (!isset($options['COLLATE'])) {
            $options['COLLATE'] = strtolower($options['CHARSET'] ?? 'utf8mb4') === 'utf8mb4' ? 'utf8mb4_general_ci'
                : strtolower($options['CHARSET'] ?? 'utf8mb4') . '_general_ci';
        }
        $table = ['name' => $s->name, 'columns' => [], 'indexes' => [], 'options' => $options];
        $seen = [];
        foreach ($s->columns as $d) {
            if (isset($seen[strtolower($d->name)])) {
                throw new MysqlError(1060, "Duplicate column name '" . $d->name . "'");
            }
            $seen[strtolower($d->name)] = true;
            $table['columns'][] = self::column($d);
        }
        $autos = array_filter($table['columns'], static fn (array $c): bool => $c['autoIncrement']);
        if (count($autos) > 1) {
            throw new MysqlError(1075, 'Incorrect table definition; there can be only one auto column and it must be defined as a key');
        }
        foreach ($s->columns as $d) {
            if ($d->primaryKey) {
                $table['indexes'][] = self::indexRecord($table, new Ast\IndexDef('PRIMARY', null, [['name' => $d->name, 'length' => null, 'desc' => false]]));
            }
        }
        foreach ($s->indexes as $d) {
            $record = self::indexRecord($table, $d);
            if ($record['kind'] === 'PRIMARY') {
                array_unshift($table['indexes'], $record);
            } else {
                $table['indexes'][] = $record;
            }
        }
        foreach ($s->columns as $d) {
            if ($d->unique) {
                $table['indexes'][] = self::indexRecord($table, new Ast\IndexDef('UNIQUE', $d->name, [['name' => $d->name, 'length' => null, 'desc' => false]]));
            }
        }
        $table = self::primaryColumnsNotNull($table);
        $start = isset($options['AUTO_INCREMENT']) ? (int) $options['AUTO_INCREMENT'] : null;
        $defs = array_map(static fn (array $c): string => self::pgColumn($c, $options, $start), $table['columns']);
        $statements = [];
        $rest = [];
        foreach ($table['indexes'] as $index) {
            if ($index['kind'] === 'PRIMARY') {
                $defs[] = 'CONSTRAINT ' . Sql::ident($index['pg']) . ' PRIMARY KEY ('
                    . implode(', ', array_map(static fn (array $p): string => Sql::ident($p['name']), $index['columns'])) . ')';
            } else {
                $rest[] = self::createIndexSql($table, $index);
            }
        }
        $statements[] = 'CREATE TABLE ' . Sql::ident($table['name']) . ' (' . implode(', ', $defs) . ')';
        array_push($statements, ...$rest);
        $statements[] = Catalog::upsertSql($table);
        $this->catalog->put($table);
        return new Translation('ddl', $statements, null, null, null, 'rows', true, true);
    }

    private static function primaryColumnsNotNull(array $table): array
    {
        $pk = array_flip(array_map('strtolower', Catalog::primaryKey($table)));
        foreach ($table['columns'] as &$c) {
            if (isset($pk[strtolower($c['name'])])) {
                $c['nullable'] = false;
            }
        }
        unset($c);
        return $table;
    }

    public function drop(Ast\DropTable $s): Translation
    {
        if ($s->temporary) {
            throw new TranslateError('DROP TEMPORARY TABLE');
        }
        $missing = [];
        foreach ($s->names as $name) {
            if (!$this->catalog->has($name)) {
                $missing[] = $this->database . '.' . $name;
            }
        }
        if ($missing !== [] && !$s->ifExists) {
            throw new MysqlError(1051, "Unknown table '" . implode(',', $missing) . "'");
        }
        $statements = [];
        foreach ($s->names as $name) {
            if ($this->catalog->has($name)) {
                $statements[] = 'DROP TABLE IF EXISTS ' . Sql::ident($name);
                $statements[] = Catalog::deleteSql($name);
                $this->catalog->remove($name);
            }
        }
        return new Translation('ddl', $statements, null, null, null, 'rows', $statements !== [], true);
    }

    public function truncate(Ast\TruncateTable $s): Translation
    {
        if (!$this->catalog->has($s->name)) {
            throw MysqlError::noSuchTable($this->database, $s->name);
        }
        return new Translation('ddl', ['TRUNCATE ' . Sql::ident($s->name) . ' RESTART IDENTITY']);
    }

    public function alter(Ast\AlterTable $s): Translation
    {
        $table = $this->catalog->table($s->table) ?? throw MysqlError::noSuchTable($this->database, $s->table);
        $oldName = $table['name'];
        $statements = [];
        foreach ($s->actions as $action) {
            $table = $this->action($table, $action, $statements);
        }
        $table = self::primaryColumnsNotNull($table);
        if ($table['name'] !== $oldName) {
            $statements[] = Catalog::deleteSql($oldName);
            $this->catalog->remove($oldName);
        }
        $statements[] = Catalog::upsertSql($table);
        $this->catalog->put($table);
        return new Translation('ddl', $statements, null, null, null, 'rows', true, true);
    }

    /** @param string[] $statements */
    private function action(array $table, Ast\AlterAction $a, array &$statements): array
    {
        $t = Sql::ident($table['name']);
        switch ($a->kind) {
            case 'ADD COLUMN':
                $d = $a->column;
                if (Catalog::column($table, $d->name) !== null) {
                    throw new MysqlError(1060, "Duplicate column name '" . $d->name . "'");
                }
                $column = self::column($d);
                $statements[] = 'ALTER TABLE ' . $t . ' ADD COLUMN ' . self::pgColumn($column, $table['options']);
                $table['columns'] = self::place($table['columns'], $column, $a, null);
                if ($d->primaryKey) {
                    $index = self::indexRecord($table, new Ast\IndexDef('PRIMARY', null, [['name' => $d->name, 'length' => null, 'desc' => false]]));
                    $table['indexes'][] = $index;
                    $statements[] = self::createIndexSql($table, $index);
                }
                if ($d->unique) {
                    $index = self::indexRecord($table, new Ast\IndexDef('UNIQUE', $d->name, [['name' => $d->name, 'length' => null, 'desc' => false]]));
                    $table['indexes'][] = $index;
                    $statements[] = self::createIndexSql($table, $index);
                }
                return $table;
            case 'DROP COLUMN':
                $column = Catalog::column($table, (string) $a->name)
                    ?? throw new MysqlError(1091, "Can't DROP COLUMN `" . $a->name . "`; check that it exists");
                $statements[] = 'ALTER TABLE ' . $t . ' DROP COLUMN ' . Sql::ident($column['name']);
                $table['columns'] = array_values(array_filter($table['columns'], static fn (array $c): bool => $c['name'] !== $column['name']));
                $indexes = [];
                foreach ($table['indexes'] as $index) {
                    $parts = array_values(array_filter($index['columns'], static fn (array $p): bool => strcasecmp($p['name'], $column['name']) !== 0));
                    if ($parts === []) {
                        continue;
                    }
                    if (count($parts) !== count($index['columns'])) {
                        // PostgreSQL dropped the whole index; MySQL keeps it without the column.
                        $index['columns'] = $parts;
                        $statements[] = self::dropIndexSql($table, $index);
                        $statements[] = self::createIndexSql($table, $index);
                    }
                    $indexes[] = $index;
                }
                $table['indexes'] = $indexes;
                return $table;
            case 'CHANGE COLUMN':
            case 'MODIFY COLUMN':
                $oldName = $a->kind === 'CHANGE COLUMN' ? (string) $a->name : $a->column->name;
                $old = Catalog::column($table, $oldName)
                    ?? throw new MysqlError(1054, "Unknown column '" . $oldName . "' in '" . $table['name'] . "'");
                $new = self::column($a->column);
                foreach (Catalog::primaryKey($table) as $key) {
                    if (strcasecmp($key, $old['name']) === 0) {
                        $new['nullable'] = false;   // MySQL keeps primary key columns NOT NULL
                    }
                }
                if (strcasecmp($new['name'], $old['name']) !== 0 && Catalog::column($table, $new['name']) !== null) {
                    throw new MysqlError(1060, "Duplicate column name '" . $new['name'] . "'");
                }
                $this->changeColumn($table, $old, $new, $statements);
                $table['columns'] = self::place($table['columns'], $new, $a, $old['name']);
                foreach ($table['indexes'] as &$index) {
                    foreach ($index['columns'] as &$part) {
                        if (strcasecmp($part['name'], $old['name']) === 0) {
                            $part['name'] = $new['name'];
                        }
                    }
                    unset($part);
                }
                unset($index);
                return $table;
            case 'ALTER COLUMN SET DEFAULT':
            case 'ALTER COLUMN DROP DEFAULT':
                $column = Catalog::column($table, (string) $a->name)
                    ?? throw new MysqlError(1054, "Unknown column '" . $a->name . "' in '" . $table['name'] . "'");
                if ($a->kind === 'ALTER COLUMN SET DEFAULT') {
                    [$column['default'], $column['defaultExpr']] = self::defaultText($a->default ?? new Ast\Literal('null', ''));
                } else {
                    $column['default'] = null;
                    $column['defaultExpr'] = false;
                }
                $default = self::pgDefault($column);
                $statements[] = 'ALTER TABLE ' . $t . ' ALTER COLUMN ' . Sql::ident($column['name'])
                    . ($default !== null ? ' SET DEFAULT ' . $default : ' DROP DEFAULT');
                foreach ($table['columns'] as $i => $c) {
                    if ($c['name'] === $column['name']) {
                        $table['columns'][$i] = $column;
                    }
                }
                return $table;
            case 'ADD INDEX':
                $index = self::indexRecord($table, $a->index);
                if ($index['kind'] === 'PRIMARY') {
                    array_unshift($table['indexes'], $index);
                    $table = self::primaryColumnsNotNull($table);
                } else {
                    $table['indexes'][] = $index;
                }
                $statements[] = self::createIndexSql($table, $index);
                return $table;
            case 'DROP INDEX':
            case 'DROP PRIMARY KEY':
                $name = $a->kind === 'DROP PRIMARY KEY' ? 'PRIMARY' : (string) $a->name;
                $index = Catalog::index($table, $name)
                    ?? throw new MysqlError(1091, "Can't DROP INDEX `" . $name . "`; check that it exists");
                $statements[] = self::dropIndexSql($table, $index);
                $table['indexes'] = array_values(array_filter($table['indexes'], static fn (array $i): bool => $i['name'] !== $index['name']));
                return $table;
            case 'RENAME':
                $to = (string) $a->name;
                if ($to === $table['name']) {
                    return $table;
                }
                if ($this->catalog->has($to)) {
                    throw MysqlError::tableExists($to);
                }
                $statements[] = 'ALTER TABLE ' . $t . ' RENAME TO ' . Sql::ident($to);
                $table['name'] = $to;
                return $table;
            case 'CONVERT CHARSET':
                $table['options']['CHARSET'] = $a->options['CHARSET'] ?? $table['options']['CHARSET'] ?? 'utf8mb4';
                $table['options']['COLLATE'] = $a->options['COLLATE'] ?? ($table['options']['CHARSET'] . '_general_ci');
                foreach ($table['columns'] as &$c) {
                    if (in_array($c['type'], self::TEXT_TYPES, true)) {
                        $c['collation'] = null;
                        $c['charset'] = null;
                    }
                }
                unset($c);
                return $table;
            case 'OPTION':
                foreach ($a->options as $key => $value) {
                    $key = $key === 'DEFAULT CHARSET' ? 'CHARSET' : $key;
                    if ($key === 'AUTO_INCREMENT') {
                        $auto = Catalog::autoIncrementColumn($table);
                        if ($auto !== null) {
                            $statements[] = 'SELECT berth_mysql_bump_identity(' . Sql::literal($t) . ', ' . Sql::literal($auto['name'])
                                . ', ' . max(0, (int) $value - 1) . ')';
                        }
                        continue;
                    }
                    $table['options'][$key] = $value;
                }
                return $table;
        }
        throw new TranslateError('ALTER TABLE ... ' . $a->kind);
    }

    /** Places a new or changed column where FIRST/AFTER says, else where the old one was (or last). */
    private static function place(array $columns, array $column, Ast\AlterAction $a, ?string $replacing): array
    {
        $index = null;
        if ($replacing !== null) {
            foreach ($columns as $i => $c) {
                if (strcasecmp($c['name'], $replacing) === 0) {
                    $index = $i;
                }
            }
            if ($a->first || $a->after !== null) {
                array_splice($columns, $index, 1);
                $index = null;
            }
        }
        if ($index !== null) {
            $columns[$index] = $column;
            return $columns;
        }
        if ($a->first) {
            array_unshift($columns, $column);
            return $columns;
        }
        if ($a->after !== null) {
            foreach ($columns as $i => $c) {
                if (strcasecmp($c['name'], $a->after) === 0) {
                    array_splice($columns, $i + 1, 0, [$column]);
                    return $columns;
                }
            }
            throw new MysqlError(1054, "Unknown column '" . $a->after . "' in 'table definition'");
        }
        $columns[] = $column;
        return $columns;
    }

    /** @param string[] $statements */
    private function changeColumn(array $table, array $old, array $new, array &$statements): void
    {
        $t = 'ALTER TABLE ' . Sql::ident($table['name']);
        $name = Sql::ident($new['name']);
        if ($old['name'] !== $new['name']) {
            $statements[] = $t . ' RENAME COLUMN ' . Sql::ident($old['name']) . ' TO ' . $name;
        }
        if ($old['autoIncrement'] && !$new['autoIncrement']) {
            $statements[] = $t . ' ALTER COLUMN ' . $name . ' DROP IDENTITY IF EXISTS';
        }
        $oldType = self::pgType($old) . self::pgCollation($old, $table['options']);
        $newType = self::pgType($new) . self::pgCollation($new, $table['options']);
        if ($oldType !== $newType) {
            $statements[] = $t . ' ALTER COLUMN ' . $name . ' DROP DEFAULT';
            $from = Catalog::category($old);
            $to = Catalog::category($new);
            $using = match (true) {
                $from === 'text' && in_array($to, ['int', 'num', 'float'], true) => 'berth_mysql_to_number(' . $name . ')',
                $from === 'text' && ($to === 'datetime' || $to === 'date') => "COALESCE(berth_mysql_to_datetime($name), '-infinity')",
                $from !== 'text' && $to === 'text' => $name . '::text',
                default => $name,
            };
            $statements[] = $t . ' ALTER COLUMN ' . $name . ' TYPE ' . $newType . ' USING (' . $using . ')::' . self::pgType($new);
        }
        if (!$new['nullable'] && $old['nullable']) {
            $statements[] = 'UPDATE ' . Sql::ident($table['name']) . ' SET ' . $name . ' = ' . self::implicitDefault($new) . ' WHERE ' . $name . ' IS NULL';
        }
        if ($new['nullable'] !== $old['nullable']) {
            $statements[] = $t . ' ALTER COLUMN ' . $name . ($new['nullable'] ? ' DROP NOT NULL' : ' SET NOT NULL');
        }
        $default = self::pgDefault($new);
        if ($default !== self::pgDefault($old) || $oldType !== $newType) {
            $statements[] = $t . ' ALTER COLUMN ' . $name . ($default !== null ? ' SET DEFAULT ' . $default : ' DROP DEFAULT');
        }
        if ($new['autoIncrement'] && !$old['autoIncrement']) {
            $statements[] = $t . ' ALTER COLUMN ' . $name . ' ADD GENERATED BY DEFAULT AS IDENTITY';
            $statements[] = 'SELECT berth_mysql_bump_identity(' . Sql::literal(Sql::ident($table['name'])) . ', '
                . Sql::literal($new['name']) . ', (SELECT max(' . $name . ') FROM ' . Sql::ident($table['name']) . '))';
        }
    }
}
