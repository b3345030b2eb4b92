<?php

declare(strict_types=1);

namespace Berth\Pg;

use Berth\Pg\Ast;

/**
 * Writes a MySQL SELECT as PostgreSQL: FROM lists and joins checked against the catalogue,
 * `*` expanded in MySQL's column order, result columns named as MySQL names them, columns
 * that MySQL lets a grouped query show without grouping them answered as any value of the
 * group (min), DISTINCT with an ORDER BY outside the select list turned into GROUP BY, aliases
 * in GROUP BY, HAVING and ORDER BY, NULLs ordered first as MySQL orders them, LIMIT a, b.
 */
final class SelectWriter
{
    /** @var array<string, array> columns of a catalogue table as a scope source */
    private array $columnCache = [];

    public function __construct(public Catalog $catalog, private ExpressionWriter $writer, private string $database)
    {
    }

    public function setCatalog(Catalog $catalog): void
    {
        $this->catalog = $catalog;
        $this->columnCache = [];
    }

    /**
     * The whole statement (unions, ORDER BY, LIMIT).
     *
     * @return array{sql: string, count: string, columns: array<int, array{name: string, type: string, nullable: bool}>}
     *         count: the query without ORDER BY and LIMIT, for FOUND_ROWS()
     */
    public function statement(Ast\Select $select, ?Scope $outer = null): array
    {
        $first = $this->block($select, $outer);
        if ($select->unions === []) {
            $lock = '';
            if ($select->forUpdate && !$first['grouped']) {
                $lock = ' FOR UPDATE';
            } elseif ($select->lockInShareMode && !$first['grouped']) {
                $lock = ' FOR SHARE';
            }
            return [
                'sql' => $first['core'] . $first['order'] . $first['limit'] . $lock,
                'count' => $first['core'],
                'columns' => $first['columns'],
            ];
        }
        $core = '(' . $first['core'] . ')';
        foreach ($select->unions as [$all, $part]) {
            $block = $this->block($part, $outer);
            $core .= ($all ? ' UNION ALL (' : ' UNION (') . $block['core'] . $block['order'] . $block['limit'] . ')';
        }
        $order = [];
        foreach ($select->orderBy as $item) {
            $order[] = $this->unionOrderItem($item, $first['columns']);
        }
        $sql = $core . ($order !== [] ? ' ORDER BY ' . implode(', ', $order) : '') . $this->limit($select);
        return ['sql' => $sql, 'count' => $core, 'columns' => $first['columns']];
    }

    /** @return array{0: string, 1: string[]} a subquery's SQL and its column types */
    public function subquery(Ast\Select $select, Scope $outer): array
    {
        $depth = $this->writer->aggregateDepth;
        $this->writer->aggregateDepth = 0;
        try {
            $result = $this->statement($select, $outer);
        } finally {
            $this->writer->aggregateDepth = $depth;
        }
        return [$result['sql'], array_column($result['columns'], 'type')];
    }

    /** The columns of a catalogue table, as a scope source sees them. */
    public function tableColumns(array $table): array
    {
        if (!isset($this->columnCache[$table['name']])) {
            $columns = [];
            foreach ($table['columns'] as $c) {
                $columns[] = ['name' => $c['name'], 'type' => Catalog::category($c), 'nullable' => $c['nullable'],
                    'binary' => DdlTranslator::pgCollation($c, $table['options']) === ' COLLATE "C"'];
            }
            $this->columnCache[$table['name']] = $columns;
        }
        return $this->columnCache[$table['name']];
    }

    /** The catalogue table called $name, or MySQL's error 1146. */
    public function table(string $name, ?string $schema = null): array
    {
        if ($schema !== null && $schema !== $this->database) {
            if (strcasecmp($schema, 'information_schema') === 0 || strcasecmp($schema, 'mysql') === 0 || strcasecmp($schema, 'performance_schema') === 0) {
                throw new TranslateError('the system schema ' . $schema . ' (' . $schema . '.' . $name . ')');
            }
            throw MysqlError::noSuchTable($schema, $name);
        }
        $table = $this->catalog->table($name);
        if ($table === null) {
            throw MysqlError::noSuchTable($this->database, $name);
        }
        return $table;
    }

    /**
     * Adds the FROM list's tables to $scope and answers its SQL.
     *
     * @param Ast\TableRef[] $refs
     */
    public function from(array $refs, Scope $scope): string
    {
        $parts = [];
        foreach ($refs as $ref) {
            $parts[] = $this->tableRef($ref, $scope, false);
        }
        return implode(', ', $parts);
    }

    private function tableRef(Ast\TableRef $ref, Scope $scope, bool $nullable): string
    {
        if ($ref instanceof Ast\TableName && $ref->schema !== null && strcasecmp($ref->schema, 'information_schema') === 0
            && ($columns = InformationSchema::columns($ref->name)) !== null) {
            $name = $ref->alias ?? $ref->name;
            $scope->add($name, $columns, null, [], $nullable);
            return '(' . InformationSchema::sql($ref->name, $this->catalog, $this->database) . ') AS ' . Sql::ident($name);
        }
        if ($ref instanceof Ast\TableName) {
            $table = $this->table($ref->name, $ref->schema);
            $name = $ref->alias ?? $ref->name;
            foreach ($scope->sources as $source) {
                if ($source['name'] === $name) {
                    throw new MysqlError(1066, "Not unique table/alias: '" . $name . "'");
                }
            }
            $scope->add($name, $this->tableColumns($table), $table, Catalog::primaryKey($table), $nullable);
            return Sql::ident($table['name']) . ($ref->alias !== null ? ' AS ' . Sql::ident($ref->alias) : '');
        }
        if ($ref instanceof Ast\DerivedTable) {
            $result = $this->statement($ref->query, $scope->outer);
            $columns = [];
            foreach ($result['columns'] as $c) {
                $columns[] = ['name' => $c['name'], 'type' => $c['type'], 'nullable' => true];
            }
            $scope->add($ref->alias, $columns, null, [], $nullable);
            return '(' . $result['sql'] . ') AS ' . Sql::ident($ref->alias);
        }
        if ($ref instanceof Ast\Join) {
            $type = $ref->type;
            $left = $this->tableRef($ref->left, $scope, $nullable || $type === 'RIGHT');
            $right = $this->tableRef($ref->right, $scope, $nullable || $type === 'LEFT');
            $join = match ($type) {
                'LEFT' => ' LEFT JOIN ',
                'RIGHT' => ' RIGHT JOIN ',
                default => ' JOIN ',
            };
            if ($ref->using !== null) {
                $names = [];
                $rightSource = end($scope->sources);
                foreach ($ref->using as $column) {
                    $c = Scope::columnOf($rightSource, $column) ?? throw MysqlError::unknownColumn($column, 'from clause');
                    $names[] = Sql::ident($c['name']);
                }
                return $left . $join . $right . ' USING (' . implode(', ', $names) . ')';
            }
            if ($ref->on === null) {
                return $left . ($type === 'LEFT' || $type === 'RIGHT' ? $join : ' CROSS JOIN ') . $right
                    . ($type === 'LEFT' || $type === 'RIGHT' ? ' ON TRUE' : '');
            }
            $on = $this->writer->bool($this->writer->expr($ref->on, $scope, 'on clause'));
            return $left . $join . $right . ' ON ' . $on;
        }
        throw new TranslateError('the table reference ' . (new \ReflectionClass($ref))->getShortName());
    }

    /**
     * One query block: SELECT ... FROM ... WHERE ... GROUP BY ... HAVING (core), ORDER BY, LIMIT.
     */
    private function block(Ast\Select $s, ?Scope $outer): array
    {
        $scope = new Scope($outer);
        $from = $s->from !== [] ? ' FROM ' . $this->from($s->from, $scope) : '';
        $where = $s->where !== null ? ' WHERE ' . $this->writer->bool($this->writer->expr($s->where, $scope, 'where clause')) : '';

        $aggregates = false;
        foreach ($s->columns as $item) {
            $aggregates = $aggregates || self::hasAggregate($item->expr);
        }
        $aggregates = $aggregates || ($s->having !== null && self::hasAggregate($s->having));
        foreach ($s->orderBy as $item) {
            $aggregates = $aggregates || self::hasAggregate($item->expr);
        }
        $grouping = $s->groupBy !== [] || $aggregates;
        if ($grouping) {
            $this->startGrouping($s, $scope);
        }

        [$items, $columns, $itemSqls] = $this->selectList($s, $scope);

        $groupSql = [];
        if ($s->groupBy !== []) {
            $grouped = $scope->grouped;
            $scope->grouped = null;
            foreach ($s->groupBy as $g) {
                $groupSql[] = $this->groupItem($g, $scope, $columns);
            }
            $scope->grouped = $grouped;
        }
        $having = '';
        if ($s->having !== null) {
            $condition = $this->writer->bool($this->writer->expr($s->having, $scope, 'having clause'));
            if ($grouping) {
                $having = ' HAVING ' . $condition;
            } else {
                // MySQL's HAVING without grouping filters rows (select-list aliases allowed);
                // PostgreSQL's would make the query one group.
                $where = ($where === '' ? ' WHERE ' : $where . ' AND ') . $condition;
            }
        }

        $distinct = $s->distinct;
        $order = [];
        // ORDER BY NULL is MySQL's "do not sort" (it also stops GROUP BY's implicit order).
        $orderBy = array_values(array_filter($s->orderBy, static fn (Ast\OrderItem $i): bool => !($i->expr instanceof Ast\Literal && $i->expr->kind === 'null')));
        foreach ($orderBy as $item) {
            $order[] = $this->orderItem($item, $scope, $columns);
        }
        if ($distinct && !$grouping) {
            foreach ($order as $i => [$sql]) {
                if (!in_array($sql, $itemSqls, true) && !preg_match('/^\d+$/', $sql) && !$this->isOutputName($sql, $columns)) {
                    // PostgreSQL needs DISTINCT's ORDER BY in the select list; MySQL orders by
                    // a value of each distinct row. GROUP BY the select list says the same.
                    $distinct = false;
                    $grouping = true;
                    $scope->grouped = $this->keysOfItems($s, $scope);
                    $groupSql = array_map('strval', range(1, count($columns)));
                    break;
                }
            }
            if ($grouping) {
                $order = [];
                foreach ($orderBy as $item) {
                    $order[] = $this->orderItem($item, $scope, $columns);
                }
            }
        }
        if ($distinct && $grouping && $s->groupBy !== []) {
            foreach ($order as [$sql]) {
                if (!in_array($sql, $itemSqls, true) && !preg_match('/^\d+$/', $sql) && !$this->isOutputName($sql, $columns)) {
                    $distinct = !$this->groupsAreSelected($s, $scope, $groupSql);
                    if ($distinct) {
                        throw new TranslateError('SELECT DISTINCT with GROUP BY, ordered by what it neither selects nor groups');
                    }
                    break;
                }
            }
        }
        if ($s->orderBy === [] && $groupSql !== [] && $s->groupBy !== []) {
            // MariaDB sorts a GROUP BY result by its groups when no ORDER BY is given.
            foreach ($groupSql as $g) {
                $order[] = [$g, ' NULLS FIRST'];
            }
        }

        $core = 'SELECT ' . ($distinct ? 'DISTINCT ' : '') . implode(', ', $items) . $from . $where
            . ($groupSql !== [] ? ' GROUP BY ' . implode(', ', $groupSql) : '') . $having;
        $orderSql = $order !== [] ? ' ORDER BY ' . implode(', ', array_map(static fn (array $o): string => $o[0] . $o[1], $order)) : '';
        return [
            'core' => $core,
            'order' => $orderSql,
            'limit' => $this->limit($s),
            'columns' => $columns,
            'grouped' => $grouping || $distinct,
        ];
    }

    /**
     * True when every GROUP BY expression is also selected: each group is then one distinct
     * row already and DISTINCT (which PostgreSQL refuses beside an ORDER BY outside the select
     * list) can go.
     *
     * @param string[] $groupSql
     */
    private function groupsAreSelected(Ast\Select $s, Scope $scope, array $groupSql): bool
    {
        $grouped = $scope->grouped;
        $scope->grouped = null;
        $selected = [];
        try {
            foreach ($s->columns as $item) {
                if (!$item->expr instanceof Ast\Star && !($item->expr instanceof Ast\ColumnRef && $item->expr->column === '*')) {
                    $selected[] = $this->writer->expr($item->expr, $scope, 'field list')->sql;
                }
            }
        } finally {
            $scope->grouped = $grouped;
        }
        foreach ($groupSql as $g) {
            if (!preg_match('/^\d+$/', $g) && !in_array($g, $selected, true)) {
                return false;
            }
        }
        return true;
    }

    private function isOutputName(string $sql, array $columns): bool
    {
        foreach ($columns as $c) {
            if ($sql === Sql::ident($c['name'])) {
                return true;
            }
        }
        return false;
    }

    /** @return array{0: string[], 1: array, 2: string[]} item SQL, output columns, bare item expressions */
    private function selectList(Ast\Select $s, Scope $scope): array
    {
        $items = [];
        $columns = [];
        $bare = [];
        foreach ($s->columns as $item) {
            $e = $item->expr;
            if ($e instanceof Ast\Star || ($e instanceof Ast\ColumnRef && $e->column === '*')) {
                $sources = $scope->sources;
                if ($e instanceof Ast\ColumnRef) {
                    $one = $scope->source((string) $e->table) ?? throw new MysqlError(1051, "Unknown table '" . $e->table . "'");
                    $sources = [$one];
                }
                if ($sources === []) {
                    throw new MysqlError(1096, 'No tables used');
                }
                foreach ($sources as $source) {
                    foreach ($source['columns'] as $c) {
                        $t = $this->writer->expr(new Ast\ColumnRef($source['name'], $c['name']), $scope, 'field list');
                        $plain = Sql::ident($source['name']) . '.' . Sql::ident($c['name']);
                        $items[] = $t->sql === $plain ? $plain : $t->sql . ' AS ' . Sql::ident($c['name']);
                        $bare[] = $t->sql;
                        $columns[] = ['name' => $c['name'], 'type' => $c['type'], 'nullable' => $c['nullable']];
                    }
                }
                continue;
            }
            $t = $this->writer->expr($e, $scope, 'field list');
            $name = $item->alias ?? ($e instanceof Ast\ColumnRef ? $e->column : $item->text);
            // MySQL answers a condition as the number 1 or 0, never PostgreSQL's t/f.
            $sql = $t->type === 'bool' ? '(' . $t->sql . ')::integer' : $t->sql;
            $items[] = $sql . ' AS ' . Sql::ident($name);
            $bare[] = $sql;
            $columns[] = ['name' => $name, 'type' => $t->type === 'bool' ? 'int' : $t->type, 'nullable' => $t->nullable];
            if ($item->alias !== null) {
                $alias = new Typed($t->sql, $t->type, $t->string, $t->number, $t->nullable);
                $scope->aliases[strtolower($item->alias)] = $alias;
                $scope->aliasNames[strtolower($item->alias)] = $item->alias;
            }
        }
        return [$items, $columns, $bare];
    }

    private function startGrouping(Ast\Select $s, Scope $scope): void
    {
        $grouped = [];
        foreach ($s->groupBy as $g) {
            $e = $g;
            if ($e instanceof Ast\Literal && $e->kind === 'number') {
                $e = $s->columns[(int) $e->value - 1]->expr ?? $e;
            } elseif ($e instanceof Ast\ColumnRef && $e->table === null && $this->writer->resolve($e, $scope, 'group statement') === null) {
                foreach ($s->columns as $item) {
                    if ($item->alias !== null && strcasecmp($item->alias, $e->column) === 0) {
                        $e = $item->expr;
                    }
                }
            }
            if ($e instanceof Ast\ColumnRef) {
                $key = $this->keyOf($e, $scope);
                if ($key !== null) {
                    $grouped[$key] = true;
                }
            }
        }
        $scope->grouped = $grouped;
        $this->determine($scope);
    }

    private function keysOfItems(Ast\Select $s, Scope $scope): array
    {
        $grouped = [];
        foreach ($s->columns as $item) {
            if ($item->expr instanceof Ast\ColumnRef && $item->expr->column !== '*') {
                $key = $this->keyOf($item->expr, $scope);
                if ($key !== null) {
                    $grouped[$key] = true;
                }
            } elseif ($item->expr instanceof Ast\Star || ($item->expr instanceof Ast\ColumnRef)) {
                foreach ($scope->sources as $source) {
                    if ($item->expr instanceof Ast\Star || strcasecmp($source['name'], (string) $item->expr->table) === 0) {
                        foreach ($source['columns'] as $c) {
                            $grouped[strtolower($source['name'] . '.' . $c['name'])] = true;
                        }
                    }
                }
            }
        }
        $scope->grouped = $grouped;
        $this->determine($scope);
        return $grouped;
    }

    private function keyOf(Ast\ColumnRef $e, Scope $scope): ?string
    {
        $resolved = $this->writer->resolve($e, $scope, 'group statement');
        if ($resolved === null || $resolved[2] !== $scope) {
            return null;
        }
        return strtolower($resolved[0]['name'] . '.' . $resolved[1]['name']);
    }

    /** Sources whose whole primary key is grouped: every column of theirs is one value per group. */
    private function determine(Scope $scope): void
    {
        $scope->determined = [];
        foreach ($scope->sources as $source) {
            if ($source['pk'] === []) {
                continue;
            }
            $all = true;
            foreach ($source['pk'] as $column) {
                $all = $all && isset($scope->grouped[strtolower($source['name'] . '.' . $column)]);
            }
            if ($all) {
                $scope->determined[strtolower($source['name'])] = true;
            }
        }
    }

    private function groupItem(Ast\Expr $g, Scope $scope, array $columns): string
    {
        if ($g instanceof Ast\Literal && $g->kind === 'number') {
            return $g->value;
        }
        if ($g instanceof Ast\ColumnRef && $g->table === null && $this->writer->resolve($g, $scope, 'group statement') === null) {
            foreach ($columns as $i => $c) {
                if (strcasecmp($c['name'], $g->column) === 0) {
                    return (string) ($i + 1);
                }
            }
        }
        return $this->writer->expr($g, $scope, 'group statement')->sql;
    }

    /** @return array{0: string, 1: string} the expression and its direction with MySQL's NULL order */
    private function orderItem(Ast\OrderItem $item, Scope $scope, array $columns): array
    {
        $e = $item->expr;
        $direction = $item->desc ? ' DESC' : '';
        if ($e instanceof Ast\Literal && $e->kind === 'number') {
            $i = (int) $e->value - 1;
            if (!isset($columns[$i])) {
                throw new MysqlError(1054, "Unknown column '" . $e->value . "' in 'order clause'");
            }
            return [$e->value, $direction . $this->nulls($item->desc, $columns[$i]['nullable'])];
        }
        if ($e instanceof Ast\ColumnRef && $e->table === null && isset($scope->aliases[strtolower($e->column)])) {
            // MySQL's ORDER BY looks at select-list aliases before the tables' columns.
            $alias = $scope->aliases[strtolower($e->column)];
            return [Sql::ident($scope->aliasNames[strtolower($e->column)]), $direction . $this->nulls($item->desc, $alias->nullable)];
        }
        $t = $this->writer->expr($e, $scope, 'order clause');
        return [$t->sql, $direction . $this->nulls($item->desc, $t->nullable)];
    }

    private function nulls(bool $desc, bool $nullable): string
    {
        if (!$nullable) {
            return '';
        }
        return $desc ? ' NULLS LAST' : ' NULLS FIRST';
    }

    private function unionOrderItem(Ast\OrderItem $item, array $columns): string
    {
        $e = $item->expr;
        $direction = $item->desc ? ' DESC NULLS LAST' : ' NULLS FIRST';
        if ($e instanceof Ast\Literal && $e->kind === 'number') {
            return $e->value . $direction;
        }
        if ($e instanceof Ast\ColumnRef) {
            foreach ($columns as $c) {
                if (strcasecmp($c['name'], $e->column) === 0) {
                    return Sql::ident($c['name']) . $direction;
                }
            }
            throw MysqlError::unknownColumn($e->column, 'order clause');
        }
        throw new TranslateError('an ORDER BY expression after UNION that is not a result column');
    }

    private function limit(Ast\Select $s): string
    {
        $sql = '';
        if ($s->limit !== null) {
            $sql .= ' LIMIT ' . $this->count($s->limit);
        }
        if ($s->offset !== null) {
            $sql .= ' OFFSET ' . $this->count($s->offset);
        }
        return $sql;
    }

    public function count(Ast\Expr $e): string
    {
        if ($e instanceof Ast\Literal && $e->kind === 'number' && preg_match('/^\d+$/', $e->value)) {
            return strlen(ltrim($e->value, '0')) > 18 ? 'ALL' : $e->value;
        }
        throw new TranslateError('a LIMIT that is not a whole number');
    }

    /** True when the expression aggregates at this query level (subqueries do not count). */
    public static function hasAggregate(Ast\Node $node): bool
    {
        if ($node instanceof Ast\FunctionCall && isset(ExpressionWriter::AGGREGATES[$node->name])) {
            return true;
        }
        if ($node instanceof Ast\Select || $node instanceof Ast\Subquery || $node instanceof Ast\Exists) {
            return false;
        }
        foreach (get_object_vars($node) as $value) {
            if ($value instanceof Ast\Expr && !($value instanceof Ast\Select)) {
                if (self::hasAggregate($value)) {
                    return true;
                }
            } elseif (is_array($value)) {
                foreach ($value as $v) {
                    if ($v instanceof Ast\Expr && self::hasAggregate($v)) {
                        return true;
                    }
                    if (is_array($v)) {
                        foreach ($v as $w) {
                            if ($w instanceof Ast\Expr && self::hasAggregate($w)) {
                                return true;
                            }
                        }
                    }
                }
            }
        }
        return false;
    }
}
