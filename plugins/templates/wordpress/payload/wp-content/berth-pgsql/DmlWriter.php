<?php

declare(strict_types=1);

namespace Berth\Pg;

use Berth\Pg\Ast;

/**
 * INSERT, REPLACE, UPDATE and DELETE with MySQL's outcomes: values converted as MySQL's
 * non-strict mode stores them (WordPress turns strict mode off), auto-increment ids through
 * RETURNING, ON DUPLICATE KEY UPDATE and REPLACE as ON CONFLICT on the unique key the row
 * gives, INSERT IGNORE as DO NOTHING, UPDATE matching only rows it changes (MySQL's affected
 * rows), multi-table DELETE, ORDER BY/LIMIT on UPDATE and DELETE.
 */
final class DmlWriter
{
    public function __construct(private SelectWriter $selects, private ExpressionWriter $writer)
    {
    }

    // ------------------------------------------------------------------ values

    /** A value as MySQL (non-strict) would store it in $column. */
    public function assign(Typed $v, array $column): string
    {
        if ($v->type === 'null') {
            return 'NULL';
        }
        $category = Catalog::category($column);
        switch ($category) {
            case 'int':
                if ($v->type === 'text' && $v->string !== null) {
                    $n = ExpressionWriter::mysqlNumber($v->string);
                    return is_int($n) ? (string) $n : ExpressionWriter::numberSql(round($n));
                }
                if ($v->isTemporal()) {
                    throw new TranslateError('a date stored in the number column ' . $column['name']);
                }
                return $v->type === 'float' && !$v->number ? 'round(' . $this->writer->num($v) . ')' : $this->writer->num($v);
            case 'num': case 'float':
                if ($v->isTemporal()) {
                    throw new TranslateError('a date stored in the number column ' . $column['name']);
                }
                return $this->writer->num($v);
            case 'datetime': case 'date':
                if ($v->type === 'text') {
                    if ($v->string !== null) {
                        return Sql::literal(ExpressionWriter::mysqlDatetime($v->string, true) ?? '-infinity');
                    }
                    return 'berth_mysql_to_datetime(' . $v->sql . ')';
                }
                if ($v->isTemporal()) {
                    return $v->sql;
                }
                throw new TranslateError('a number stored in the date column ' . $column['name']);
            case 'time':
                return $v->type === 'text' ? $v->sql : '(' . $v->sql . ')::time';
            default:
                if ($v->type === 'text') {
                    $length = $column['length'];
                    if ($v->string !== null && $length !== null && in_array($column['type'], ['varchar', 'char'], true)
                        && mb_strlen($v->string, 'UTF-8') > $length && mb_check_encoding($v->string, 'UTF-8')) {
                        // Non-strict MySQL keeps what fits.
                        return Sql::literal(mb_substr($v->string, 0, $length, 'UTF-8'));
                    }
                    return $v->sql;
                }
                if ($v->number && $v->type !== 'float') {
                    return Sql::literal($v->sql);
                }
                return $this->writer->text($v);
        }
    }

    /**
     * One `column = value` of a SET, the test whether it changes the row (MySQL counts only
     * changed rows) and the value written (null for DEFAULT).
     *
     * @return array{0: string, 1: string, 2: ?string}
     */
    private function setItem(string $target, array $column, Ast\Expr $e, Scope $scope): array
    {
        if ($e instanceof Ast\DefaultValue) {
            return [Sql::ident($column['name']) . ' = DEFAULT', 'TRUE', null];
        }
        $value = $this->assign($this->writer->expr($e, $scope, 'field list'), $column);
        return [Sql::ident($column['name']) . ' = ' . $value, $this->changes($target, $value, $column), $value];
    }

    /** The condition "this assignment changes the stored value", compared byte for byte. */
    private function changes(string $target, string $value, array $column): string
    {
        if ($value === 'NULL') {
            return $target . ' IS NOT NULL';
        }
        if (Catalog::isText($column)) {
            return '(' . $target . ' COLLATE "C") IS DISTINCT FROM ((' . $value . ')::text COLLATE "C")';
        }
        return $target . ' IS DISTINCT FROM ' . $value;
    }

    private function emptyScope(): Scope
    {
        return new Scope();
    }

    // ------------------------------------------------------------------ INSERT / REPLACE

    public function insert(Ast\Insert $s): Translation
    {
        $table = $this->selects->table($s->table);
        $tableSql = Sql::ident($table['name']);
        $columns = [];
        if ($s->columns === []) {
            $columns = $table['columns'];
        } else {
            $seen = [];
            foreach ($s->columns as $name) {
                $column = Catalog::column($table, $name) ?? throw MysqlError::unknownColumn($name, 'field list');
                if (isset($seen[strtolower($column['name'])])) {
                    throw new MysqlError(1110, "Column '" . $column['name'] . "' specified twice");
                }
                $seen[strtolower($column['name'])] = true;
                $columns[] = $column;
            }
        }
        $auto = Catalog::autoIncrementColumn($table);
        $names = array_map(static fn (array $c): string => Sql::ident($c['name']), $columns);
        $statements = [];
        $explicitId = null;

        if ($s->select !== null) {
            foreach ($columns as $c) {
                if ($auto !== null && $c['name'] === $auto['name']) {
                    throw new TranslateError('INSERT ... SELECT that gives the auto-increment column ' . $c['name']);
                }
            }
            $select = $this->selects->statement($s->select);
            if (count($select['columns']) !== count($columns)) {
                throw new MysqlError(1136, "Column count doesn't match value count at row 1");
            }
            $source = ' ' . $select['sql'];
        } elseif ($columns === [] || ($s->rows === [[]] && $s->columns === [])) {
            $source = ' DEFAULT VALUES';
        } else {
            $rows = [];
            $scope = $this->emptyScope();
            foreach ($s->rows as $r => $row) {
                if (count($row) !== count($columns)) {
                    throw new MysqlError(1136, "Column count doesn't match value count at row " . ($r + 1));
                }
                $values = [];
                foreach ($row as $i => $e) {
                    $column = $columns[$i];
                    if ($e instanceof Ast\DefaultValue) {
                        $values[] = 'DEFAULT';
                        continue;
                    }
                    $v = $this->writer->expr($e, $scope, 'field list');
                    if ($auto !== null && $column['name'] === $auto['name']) {
                        // MySQL generates an id for 0 and NULL (NO_AUTO_VALUE_ON_ZERO is off).
                        $n = $v->type === 'null' ? 0 : ($v->string !== null ? ExpressionWriter::mysqlNumber($v->string)
                            : ($v->number && $v->type === 'int' ? (int) $v->sql : null));
                        if ($n === null) {
                            throw new TranslateError('an auto-increment value that is not a literal number');
                        }
                        if ((int) $n === 0) {
                            $values[] = 'DEFAULT';
                            continue;
                        }
                        $explicitId = max($explicitId ?? PHP_INT_MIN, (int) $n);
                        $values[] = (string) (int) $n;
                        continue;
                    }
                    $values[] = $this->assign($v, $column);
                }
                $rows[] = '(' . implode(', ', $values) . ')';
            }
            $source = ' VALUES ' . implode(', ', $rows);
        }
        if ($explicitId !== null) {
            $statements[] = 'SELECT berth_mysql_bump_identity(' . Sql::literal($tableSql) . ', '
                . Sql::literal($auto['name']) . ', ' . $explicitId . ')';
        }

        $sql = 'INSERT INTO ' . $tableSql . ($names !== [] && $source !== ' DEFAULT VALUES' ? ' (' . implode(', ', $names) . ')' : '') . $source;
        $affected = 'rows';
        $returning = [];
        if ($auto !== null) {
            $returning[] = Sql::ident($auto['name']);
        }
        if ($s->verb === 'REPLACE') {
            $key = $this->conflictKey($table, $columns, $s->verb);
            if ($key !== null) {
                // The new row replaces the old one whole: EXCLUDED holds the given values and the
                // defaults of the others, a newly drawn id included (MySQL deletes and inserts).
                $set = [];
                foreach ($table['columns'] as $c) {
                    $set[] = Sql::ident($c['name']) . ' = EXCLUDED.' . Sql::ident($c['name']);
                }
                $sql .= ' ON CONFLICT (' . $key . ') DO UPDATE SET ' . implode(', ', $set);
            }
            $returning[] = '(xmax = 0) AS "__berth_inserted"';
            $affected = 'replace';
        } elseif ($s->onDuplicate !== []) {
            $key = $this->conflictKey($table, $columns, 'INSERT ... ON DUPLICATE KEY UPDATE');
            if ($key !== null) {
                $scope = new Scope();
                $scope->add($table['name'], $this->selects->tableColumns($table), $table, Catalog::primaryKey($table));
                $this->writer->valuesTable = $table;
                try {
                    $set = [];
                    $changed = [];
                    foreach ($s->onDuplicate as [$name, $e]) {
                        $column = Catalog::column($table, $name) ?? throw MysqlError::unknownColumn($name, 'field list');
                        $target = Sql::ident($table['name']) . '.' . Sql::ident($column['name']);
                        [$set[], $changed[]] = $this->setItem($target, $column, $e, $scope);
                    }
                } finally {
                    $this->writer->valuesTable = null;
                }
                $sql .= ' ON CONFLICT (' . $key . ') DO UPDATE SET ' . implode(', ', $set)
                    . ' WHERE ' . implode(' OR ', $changed);
            }
            $returning[] = '(xmax = 0) AS "__berth_inserted"';
            $affected = 'upsert';
        } elseif ($s->ignore) {
            $sql .= ' ON CONFLICT DO NOTHING';
        }
        if ($returning !== []) {
            $sql .= ' RETURNING ' . implode(', ', $returning);
        }
        if ($affected !== 'rows' && $auto !== null && count($s->rows) > 1) {
            // insert_id is the first row the statement inserted (MySQL's rule), so inserted
            // rows come first, in id order.
            $sql = 'WITH "__berth_rows" AS (' . $sql . ') SELECT * FROM "__berth_rows" ORDER BY "__berth_inserted" DESC, '
                . Sql::ident($auto['name']);
        }
        $statements[] = $sql;
        return new Translation('insert', $statements, null, null, $auto['name'] ?? null, $affected, false, count($statements) > 1);
    }

    /** The unique key whose columns the row gives (PRIMARY first): the ON CONFLICT target. */
    private function conflictKey(array $table, array $columns, string $what): ?string
    {
        $given = array_flip(array_map(static fn (array $c): string => strtolower($c['name']), $columns));
        foreach (['PRIMARY', 'UNIQUE'] as $kind) {
            foreach ($table['indexes'] as $index) {
                if ($index['kind'] !== $kind) {
                    continue;
                }
                $all = true;
                foreach ($index['columns'] as $c) {
                    $all = $all && isset($given[strtolower($c['name'])]);
                }
                if (!$all) {
                    continue;
                }
                foreach ($index['columns'] as $c) {
                    if ($c['length'] !== null && $kind === 'UNIQUE' && !self::prefixDropped($table, $c)) {
                        throw new TranslateError($what . ' on the prefix key ' . $index['name']);
                    }
                }
                return implode(', ', array_map(static fn (array $c): string => Sql::ident(Catalog::column($table, $c['name'])['name']), $index['columns']));
            }
        }
        return null;
    }

    /** True when a key part's prefix length was dropped (the whole column is indexed). */
    public static function prefixDropped(array $table, array $part): bool
    {
        $column = Catalog::column($table, $part['name']);
        return $column !== null && DdlTranslator::prefixIsWholeColumn($column, $part['length']);
    }

    // ------------------------------------------------------------------ UPDATE

    public function update(Ast\Update $s): Translation
    {
        $scope = new Scope();
        $refs = [];
        $conditions = [];
        foreach ($s->tables as $ref) {
            $this->flatten($ref, $refs, $conditions);
        }
        $written = [];
        foreach ($refs as $ref) {
            $written[] = $this->selects->from([$ref], $scope);
        }
        $targetIndex = null;
        $set = [];
        $changed = [];
        $assigned = [];
        foreach ($s->set as [$ref, $e]) {
            $resolved = $this->writer->resolve($ref, $scope, 'field list');
            if ($resolved === null) {
                throw MysqlError::unknownColumn(($ref->table !== null ? $ref->table . '.' : '') . $ref->column, 'field list');
            }
            [$source, $col] = $resolved;
            $index = array_search($source['name'], array_column($scope->sources, 'name'), true);
            if ($targetIndex !== null && $targetIndex !== $index) {
                throw new TranslateError('an UPDATE that sets columns of more than one table');
            }
            $targetIndex = $index;
            $table = $source['table'] ?? throw new TranslateError('an UPDATE of a derived table');
            $column = Catalog::column($table, $col['name']);
            $target = Sql::ident($source['name']) . '.' . Sql::ident($column['name']);
            $assigned[strtolower($column['name'])] = true;
            [$set[], $changed[], $value] = $this->setItem($target, $column, $e, $scope);
            if ($value !== null && count($s->tables) === 1) {
                // MySQL assigns left to right: later expressions read this new value.
                $this->writer->assigned[strtolower($source['name'] . '.' . $column['name'])]
                    = new Typed('(' . $value . ')', Catalog::category($column), null, false, $column['nullable']);
            }
        }
        $this->writer->assigned = [];
        $target = $scope->sources[$targetIndex];
        foreach ($target['table']['columns'] as $c) {
            if (($c['onUpdate'] ?? null) !== null && !isset($assigned[strtolower($c['name'])])) {
                $set[] = Sql::ident($c['name']) . ' = ' . ExpressionWriter::NOW;
            }
        }
        if ($s->where !== null) {
            $conditions[] = $s->where;
        }
        $where = array_map(fn (Ast\Expr $c): string => $this->writer->bool($this->writer->expr($c, $scope, 'where clause')), $conditions);
        $others = $written;
        $targetSql = $others[$targetIndex];
        unset($others[$targetIndex]);
        if ($s->orderBy !== [] || $s->limit !== null) {
            if ($others !== []) {
                throw new MysqlError(1221, 'Incorrect usage of UPDATE and ORDER BY');
            }
            $where = ['ctid = ANY(ARRAY(SELECT ctid FROM ' . $targetSql . ($where !== [] ? ' WHERE ' . implode(' AND ', $where) : '')
                . $this->orderLimit($s->orderBy, $s->limit, $scope) . '))'];
        }
        // MySQL counts (and WordPress reads) only the rows whose values change.
        $where[] = '(' . implode(' OR ', $changed) . ')';
        $sql = 'UPDATE ' . $targetSql . ' SET ' . implode(', ', $set)
            . ($others !== [] ? ' FROM ' . implode(', ', $others) : '')
            . ' WHERE ' . implode(' AND ', $where);
        return new Translation('update', [$sql]);
    }

    /**
     * Splits inner joins into their tables and ON conditions (UPDATE and DELETE targets).
     *
     * @param Ast\TableRef[] $refs
     * @param Ast\Expr[]     $conditions
     */
    private function flatten(Ast\TableRef $ref, array &$refs, array &$conditions): void
    {
        if ($ref instanceof Ast\Join) {
            if ($ref->type === 'LEFT' || $ref->type === 'RIGHT' || $ref->using !== null) {
                throw new TranslateError('a multi-table UPDATE with ' . $ref->type . ' JOIN');
            }
            $this->flatten($ref->left, $refs, $conditions);
            $this->flatten($ref->right, $refs, $conditions);
            if ($ref->on !== null) {
                $conditions[] = $ref->on;
            }
            return;
        }
        $refs[] = $ref;
    }

    /** @param Ast\OrderItem[] $orderBy */
    private function orderLimit(array $orderBy, ?Ast\Expr $limit, Scope $scope): string
    {
        $sql = '';
        if ($orderBy !== []) {
            $items = [];
            foreach ($orderBy as $item) {
                $t = $this->writer->expr($item->expr, $scope, 'order clause');
                $items[] = $t->sql . ($item->desc ? ' DESC NULLS LAST' : ' NULLS FIRST');
            }
            $sql .= ' ORDER BY ' . implode(', ', $items);
        }
        if ($limit !== null) {
            $sql .= ' LIMIT ' . $this->selects->count($limit);
        }
        return $sql;
    }

    // ------------------------------------------------------------------ DELETE

    public function delete(Ast\Delete $s): Translation
    {
        $scope = new Scope();
        if ($s->targets === []) {
            $from = $this->selects->from($s->from, $scope);
            $where = $s->where !== null ? $this->writer->bool($this->writer->expr($s->where, $scope, 'where clause')) : null;
            if ($s->orderBy !== [] || $s->limit !== null) {
                $where = 'ctid = ANY(ARRAY(SELECT ctid FROM ' . $from . ($where !== null ? ' WHERE ' . $where : '')
                    . $this->orderLimit($s->orderBy, $s->limit, $scope) . '))';
            }
            return new Translation('delete', ['DELETE FROM ' . $from . ($where !== null ? ' WHERE ' . $where : '')]);
        }
        // Multi-table DELETE: the rows to delete are found once, by the join, before any is
        // deleted (as MySQL does); the final SELECT returns one row per deleted row, so its
        // row count is the affected rows.
        $from = $this->selects->from($s->from, $scope);
        $where = $s->where !== null ? ' WHERE ' . $this->writer->bool($this->writer->expr($s->where, $scope, 'where clause')) : '';
        $picks = [];
        $deletes = [];
        $counts = [];
        foreach (array_values(array_unique($s->targets)) as $i => $name) {
            $target = preg_replace('/\.\*$/', '', $name);
            $source = $scope->source($target);
            if ($source === null || $source['table'] === null) {
                throw new MysqlError(1109, "Unknown table '" . $target . "' in MULTI DELETE");
            }
            $picks[] = Sql::ident($source['name']) . '.ctid AS "__berth_t' . $i . '"';
            $deletes[] = '"__berth_d' . $i . '" AS (DELETE FROM ' . Sql::ident($source['table']['name'])
                . ' WHERE ctid = ANY(ARRAY(SELECT "__berth_t' . $i . '" FROM "__berth_m")) RETURNING 1)';
            $counts[] = 'SELECT 1 FROM "__berth_d' . $i . '"';
        }
        $sql = 'WITH "__berth_m" AS (SELECT ' . implode(', ', $picks) . ' FROM ' . $from . $where . '), '
            . implode(', ', $deletes) . ' ' . implode(' UNION ALL ', $counts);
        return new Translation('delete', [$sql]);
    }
}
