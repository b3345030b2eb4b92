<?php

declare(strict_types=1);

namespace Berth\Pg;

use Berth\Pg\Ast;

/**
 * DESCRIBE and SHOW answered from the catalogue and the session, in the shapes MariaDB's
 * mysqli answers them (column names, value strings such as 'bigint(20) unsigned', 'PRI',
 * 'auto_increment'), without a round trip to PostgreSQL. WordPress's dbDelta and wpdb read
 * these: Type for column lengths and changes, Collation for charsets, Key_name/Sub_part for
 * indexes, Tables_in_<db> for existence probes.
 */
final class ShowAnswers
{
    /** @param array<string, ?string> $variables */
    public function __construct(private Catalog $catalog, private string $database, private array &$variables)
    {
    }

    public function setCatalog(Catalog $catalog): void
    {
        $this->catalog = $catalog;
    }

    private function table(string $name): array
    {
        return $this->catalog->table($name) ?? throw MysqlError::noSuchTable($this->database, $name);
    }

    public function describe(Ast\Describe $s): Translation
    {
        $table = $this->table($s->table);
        $rows = [];
        foreach ($this->columnRows($table, false) as $row) {
            if ($s->column !== null && !self::like($row[0], $s->column, true)) {
                continue;
            }
            $rows[] = $row;
        }
        return Translation::answer(['Field', 'Type', 'Null', 'Key', 'Default', 'Extra'], $rows);
    }

    public function show(Ast\Show $s): Translation
    {
        switch ($s->what) {
            case 'COLUMNS':
            case 'FULL COLUMNS':
                $full = $s->what === 'FULL COLUMNS';
                $columns = $full
                    ? ['Field', 'Type', 'Collation', 'Null', 'Key', 'Default', 'Extra', 'Privileges', 'Comment']
                    : ['Field', 'Type', 'Null', 'Key', 'Default', 'Extra'];
                return $this->filtered($columns, $this->columnRows($this->table((string) $s->table), $full), $s, true);
            case 'INDEX':
            case 'INDEXES':
            case 'KEYS':
                return $this->filtered(
                    ['Table', 'Non_unique', 'Key_name', 'Seq_in_index', 'Column_name', 'Collation', 'Cardinality',
                        'Sub_part', 'Packed', 'Null', 'Index_type', 'Comment', 'Index_comment', 'Ignored'],
                    $this->indexRows($this->table((string) $s->table)),
                    $s,
                    true
                );
            case 'TABLES':
            case 'FULL TABLES':
                if ($s->database !== null && $s->database !== $this->database) {
                    throw new MysqlError(1049, "Unknown database '" . $s->database . "'");
                }
                $name = 'Tables_in_' . $this->database . ($s->like !== null ? ' (' . $s->like . ')' : '');
                $rows = [];
                foreach ($this->catalog->tableNames() as $table) {
                    $rows[] = $s->what === 'FULL TABLES' ? [$table, 'BASE TABLE'] : [$table];
                }
                $columns = $s->what === 'FULL TABLES' ? [$name, 'Table_type'] : [$name];
                return $this->filtered($columns, $rows, $s, false);
            case 'TABLE STATUS':
                $rows = [];
                foreach ($this->catalog->tableNames() as $name) {
                    $table = $this->catalog->table($name);
                    $rows[] = [$name, $table['options']['ENGINE'] ?? 'InnoDB', '10', 'Dynamic', '0', '0', '16384', '0', '0', '0',
                        null, null, null, null, $table['options']['COLLATE'] ?? 'utf8mb4_general_ci', null, '', '', '0', 'N'];
                }
                return $this->filtered(
                    ['Name', 'Engine', 'Version', 'Row_format', 'Rows', 'Avg_row_length', 'Data_length', 'Max_data_length',
                        'Index_length', 'Data_free', 'Auto_increment', 'Create_time', 'Update_time', 'Check_time', 'Collation',
                        'Checksum', 'Create_options', 'Comment', 'Max_index_length', 'Temporary'],
                    $rows,
                    $s,
                    false
                );
            case 'VARIABLES':
            case 'SESSION VARIABLES':
            case 'GLOBAL VARIABLES':
                $rows = [];
                $names = array_keys($this->variables);
                sort($names);
                foreach ($names as $name) {
                    if (str_starts_with($name, 'berth_')) {
                        continue;
                    }
                    $rows[] = [$name, $this->variables[$name] ?? ''];
                }
                return $this->filtered(['Variable_name', 'Value'], $rows, $s, true);
            case 'CREATE TABLE':
                $table = $this->table((string) $s->table);
                return Translation::answer(['Table', 'Create Table'], [[$table['name'], $this->createTable($table)]]);
            case 'DATABASES':
                return $this->filtered(['Database'], [['information_schema'], [$this->database]], $s, false);
            case 'GRANTS':
                $user = $this->variables['berth_user'] ?? $this->database . '@localhost';
                [$u, $h] = array_pad(explode('@', $user, 2), 2, 'localhost');
                return Translation::answer(["Grants for $u@$h"], [["GRANT ALL PRIVILEGES ON `" . $this->database . "`.* TO `$u`@`$h`"]]);
            case 'WARNINGS':
            case 'ERRORS':
                return Translation::answer(['Level', 'Code', 'Message'], []);
            case 'ENGINES':
                return Translation::answer(['Engine', 'Support', 'Comment', 'Transactions', 'XA', 'Savepoints'],
                    [['InnoDB', 'DEFAULT', 'Tables on PostgreSQL (Berth)', 'YES', 'NO', 'YES']]);
            case 'CHARACTER SET':
                return $this->filtered(['Charset', 'Description', 'Default collation', 'Maxlen'],
                    [['utf8mb4', 'UTF-8 Unicode', 'utf8mb4_general_ci', '4']], $s, true);
            case 'COLLATION':
                $rows = [];
                foreach (['utf8mb4_general_ci' => '45', 'utf8mb4_bin' => '46', 'utf8mb4_unicode_ci' => '224', 'utf8mb4_unicode_520_ci' => '246'] as $name => $id) {
                    $rows[] = [$name, 'utf8mb4', $id, $name === 'utf8mb4_general_ci' ? 'Yes' : '', 'Yes', '8'];
                }
                return $this->filtered(['Collation', 'Charset', 'Id', 'Default', 'Compiled', 'Sortlen'], $rows, $s, true);
        }
        throw new TranslateError('SHOW ' . $s->what);
    }

    /** @return array<int, array<int, ?string>> */
    private function columnRows(array $table, bool $full): array
    {
        $rows = [];
        foreach ($table['columns'] as $c) {
            $extra = $c['autoIncrement'] ? 'auto_increment' : (($c['onUpdate'] ?? null) !== null ? 'on update ' . $c['onUpdate'] : '');
            $default = $c['default'];
            $row = [$c['name'], Catalog::mysqlType($c)];
            if ($full) {
                $row[] = Catalog::collation($table, $c);
            }
            array_push($row, $c['nullable'] ? 'YES' : 'NO', $this->keyOf($table, $c), $default, $extra);
            if ($full) {
                $row[] = 'select,insert,update,references';
                $row[] = (string) ($c['comment'] ?? '');
            }
            $rows[] = $row;
        }
        return $rows;
    }

    /** PRI, UNI or MUL as SHOW COLUMNS gives them. */
    private function keyOf(array $table, array $column): string
    {
        $key = '';
        foreach ($table['indexes'] as $index) {
            $first = strcasecmp($index['columns'][0]['name'], $column['name']) === 0;
            if ($index['kind'] === 'PRIMARY') {
                foreach ($index['columns'] as $part) {
                    if (strcasecmp($part['name'], $column['name']) === 0) {
                        return 'PRI';
                    }
                }
                continue;
            }
            if (!$first) {
                continue;
            }
            if ($index['kind'] === 'UNIQUE' && count($index['columns']) === 1 && !$column['nullable']) {
                $key = 'UNI';
            } elseif ($key === '') {
                $key = 'MUL';
            }
        }
        return $key;
    }

    private function indexRows(array $table): array
    {
        $rows = [];
        foreach ($table['indexes'] as $index) {
            foreach ($index['columns'] as $i => $part) {
                $column = Catalog::column($table, $part['name']);
                $rows[] = [
                    $table['name'], $index['kind'] === 'INDEX' ? '1' : '0', $index['name'], (string) ($i + 1), $part['name'],
                    $part['desc'] ? 'D' : 'A', '0', $part['length'] !== null ? (string) $part['length'] : null, null,
                    $column !== null && $column['nullable'] ? 'YES' : '', 'BTREE', '', '', 'NO',
                ];
            }
        }
        return $rows;
    }

    /** SHOW CREATE TABLE's text, rebuilt from the catalogue. */
    private function createTable(array $table): string
    {
        $lines = [];
        foreach ($table['columns'] as $c) {
            $line = '  `' . $c['name'] . '` ' . Catalog::mysqlType($c);
            if (!$c['nullable']) {
                $line .= ' NOT NULL';
            }
            if ($c['default'] !== null) {
                $line .= ' DEFAULT ' . ($c['defaultExpr'] || Catalog::category($c) === 'int' ? $c['default'] : "'" . str_replace("'", "''", $c['default']) . "'");
            } elseif ($c['nullable'] && !$c['autoIncrement']) {
                $line .= ' DEFAULT NULL';
            }
            if ($c['autoIncrement']) {
                $line .= ' AUTO_INCREMENT';
            }
            $lines[] = $line;
        }
        foreach ($table['indexes'] as $index) {
            $parts = implode(',', array_map(static fn (array $p): string => '`' . $p['name'] . '`' . ($p['length'] !== null ? '(' . $p['length'] . ')' : ''), $index['columns']));
            $lines[] = match ($index['kind']) {
                'PRIMARY' => '  PRIMARY KEY (' . $parts . ')',
                'UNIQUE' => '  UNIQUE KEY `' . $index['name'] . '` (' . $parts . ')',
                default => '  KEY `' . $index['name'] . '` (' . $parts . ')',
            };
        }
        $charset = $table['options']['CHARSET'] ?? 'utf8mb4';
        return 'CREATE TABLE `' . $table['name'] . "` (\n" . implode(",\n", $lines) . "\n) ENGINE="
            . ($table['options']['ENGINE'] ?? 'InnoDB') . ' DEFAULT CHARSET=' . $charset
            . ' COLLATE=' . ($table['options']['COLLATE'] ?? $charset . '_general_ci');
    }

    /** Applies SHOW's LIKE (to the first column) and WHERE (over the answer's columns). */
    private function filtered(array $columns, array $rows, Ast\Show $s, bool $caseInsensitive): Translation
    {
        $out = [];
        foreach ($rows as $row) {
            if ($s->like !== null && !self::like((string) $row[0], $s->like, $caseInsensitive)) {
                continue;
            }
            if ($s->where !== null && self::evaluate($s->where, array_combine($columns, $row)) !== true) {
                continue;
            }
            $out[] = $row;
        }
        return Translation::answer($columns, $out);
    }

    public static function like(string $value, string $pattern, bool $caseInsensitive): bool
    {
        $regex = '';
        for ($i = 0, $n = strlen($pattern); $i < $n; $i++) {
            $ch = $pattern[$i];
            if ($ch === '\\' && $i + 1 < $n) {
                $regex .= preg_quote($pattern[++$i], '/');
            } elseif ($ch === '%') {
                $regex .= '.*';
            } elseif ($ch === '_') {
                $regex .= '.';
            } else {
                $regex .= preg_quote($ch, '/');
            }
        }
        return preg_match('/^' . $regex . '$/s' . ($caseInsensitive ? 'i' : '') . 'u', $value) === 1;
    }

    /** A WHERE over an answer: comparisons, LIKE, IN, AND/OR/NOT of columns and literals. */
    private static function evaluate(Ast\Expr $e, array $row): mixed
    {
        if ($e instanceof Ast\Literal) {
            return $e->kind === 'null' ? null : $e->value;
        }
        if ($e instanceof Ast\ColumnRef) {
            foreach ($row as $name => $value) {
                if (strcasecmp($name, $e->column) === 0) {
                    return $value;
                }
            }
            throw MysqlError::unknownColumn($e->column, 'where clause');
        }
        if ($e instanceof Ast\Unary && ($e->op === 'NOT' || $e->op === '!')) {
            $v = self::evaluate($e->operand, $row);
            return $v === null ? null : !$v;
        }
        if ($e instanceof Ast\Like) {
            $v = self::evaluate($e->left, $row);
            $p = self::evaluate($e->pattern, $row);
            return $v === null || $p === null ? null : (self::like((string) $v, (string) $p, true) !== $e->not);
        }
        if ($e instanceof Ast\In) {
            $v = self::evaluate($e->left, $row);
            $found = false;
            foreach ($e->list as $item) {
                $found = $found || strcasecmp((string) $v, (string) self::evaluate($item, $row)) === 0;
            }
            return $found !== $e->not;
        }
        if ($e instanceof Ast\Binary) {
            if ($e->op === 'AND' || $e->op === 'OR') {
                $l = self::evaluate($e->left, $row);
                $r = self::evaluate($e->right, $row);
                return $e->op === 'AND' ? ($l && $r) : ($l || $r);
            }
            $l = self::evaluate($e->left, $row);
            $r = self::evaluate($e->right, $row);
            if ($l === null || $r === null) {
                return null;
            }
            $cmp = is_numeric($l) && is_numeric($r) ? ($l <=> $r) : strcasecmp((string) $l, (string) $r);
            return match ($e->op) {
                '=' => $cmp === 0, '!=' => $cmp !== 0, '<' => $cmp < 0, '<=' => $cmp <= 0, '>' => $cmp > 0, '>=' => $cmp >= 0,
                default => throw new TranslateError('the operator ' . $e->op . ' in a SHOW ... WHERE'),
            };
        }
        throw new TranslateError('this expression in a SHOW ... WHERE');
    }
}
