<?php

declare(strict_types=1);

namespace Berth\Pg;

use Berth\Pg\Ast;

/**
 * Writes MySQL expressions as PostgreSQL with MySQL's meaning: its type conversions (text
 * compared with numbers as numbers, lenient string to number), its functions (emulated by
 * built-in expressions where exact, by berth_mysql_* functions of support.sql otherwise),
 * truthiness (any number is a condition), and the collation rules (see README.md).
 */
final class ExpressionWriter
{
    /** PostgreSQL's now, as MySQL's NOW() on a server in UTC: whole seconds, no time zone. */
    public const NOW = "date_trunc('second', CURRENT_TIMESTAMP AT TIME ZONE 'UTC')";

    public const AGGREGATES = [
        'COUNT' => true, 'SUM' => true, 'AVG' => true, 'MIN' => true, 'MAX' => true,
        'GROUP_CONCAT' => true, 'BIT_AND' => true, 'BIT_OR' => true, 'BIT_XOR' => true,
        'STD' => true, 'STDDEV' => true, 'STDDEV_POP' => true, 'STDDEV_SAMP' => true,
        'VARIANCE' => true, 'VAR_POP' => true, 'VAR_SAMP' => true, 'ANY_VALUE' => true,
    ];

    private const UNITS = [
        'MICROSECOND' => '1 microsecond', 'SECOND' => '1 second', 'MINUTE' => '1 minute',
        'HOUR' => '1 hour', 'DAY' => '1 day', 'WEEK' => '7 days', 'MONTH' => '1 month',
        'QUARTER' => '3 months', 'YEAR' => '1 year',
    ];

    public SelectWriter $selects;

    /** The table of an INSERT ... ON DUPLICATE KEY UPDATE, where VALUES(col) means the new row. */
    public ?array $valuesTable = null;

    /**
     * @var array<string, Typed> "source.column" (lower-case) => its new value: a single-table
     * UPDATE's later SET expressions see the values assigned before them, as in MySQL.
     */
    public array $assigned = [];

    /** Depth of aggregate arguments being written (columns there are never wrapped). */
    public int $aggregateDepth = 0;

    /**
     * @param array<string, ?string> $variables    system variables, lower-case names
     * @param array<string, ?string> $userVariables @x values
     */
    public function __construct(
        public string $database,
        public array &$variables,
        public array &$userVariables
    ) {
    }

    // ------------------------------------------------------------------ conversions

    /** The expression as a PostgreSQL condition (MySQL: any non-zero number is true). */
    public function bool(Typed $t): string
    {
        return match ($t->type) {
            'bool' => $t->sql,
            'null' => 'NULL::boolean',
            'int', 'num', 'float' => '(' . $t->sql . ' <> 0)',
            'text' => $t->string !== null ? (self::mysqlNumber($t->string) != 0 ? 'TRUE' : 'FALSE')
                : '(berth_mysql_to_number(' . $t->sql . ') <> 0)',
            default => '(' . $t->sql . ' IS NOT NULL)',
        };
    }

    /** The expression as a number (MySQL's string to number: the numeric prefix, else 0). */
    public function num(Typed $t): string
    {
        return match ($t->type) {
            'int', 'num', 'float' => $t->sql,
            'bool' => '(' . $t->sql . ')::integer',
            'null' => 'NULL::numeric',
            'text' => $t->string !== null ? self::numberSql(self::mysqlNumber($t->string))
                : 'berth_mysql_to_number(' . $t->sql . ')',
            default => throw new TranslateError('a date or time used as a number'),
        };
    }

    public function numType(Typed $t): string
    {
        return match ($t->type) {
            'int', 'bool' => 'int',
            'num' => 'num',
            'text' => $t->string !== null ? (is_int(self::mysqlNumber($t->string)) ? 'int' : 'float') : 'float',
            'null' => 'int',
            default => 'float',
        };
    }

    /** The expression as text (numbers as MySQL prints them, booleans as 1/0). */
    public function text(Typed $t): string
    {
        return match ($t->type) {
            'text' => $t->sql,
            'null' => 'NULL::text',
            'bool' => '(' . $t->sql . ')::integer::text',
            default => '(' . $t->sql . ')::text',
        };
    }

    /** The expression as a timestamp (text converted the MySQL way: zero dates, NULL for junk). */
    public function datetime(Typed $t): string
    {
        if ($t->type === 'datetime' || $t->type === 'date') {
            return $t->sql;
        }
        if ($t->type === 'null') {
            return 'NULL::timestamp';
        }
        if ($t->type === 'text') {
            if ($t->string !== null) {
                $value = self::mysqlDatetime($t->string);
                return $value === null ? 'NULL::timestamp' : Sql::literal($value) . '::timestamp';
            }
            return 'berth_mysql_to_datetime(' . $t->sql . ')';
        }
        throw new TranslateError('a ' . $t->type . ' value used as a date');
    }

    /** MySQL's value of a string used as a number: int or float. */
    public static function mysqlNumber(string $value): int|float
    {
        if (!preg_match('/^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/', $value, $m)) {
            return 0;
        }
        $text = trim($m[0]);
        if (preg_match('/^[-+]?\d+$/', $text) && strlen(ltrim($text, '+-0')) < 19) {
            return (int) $text;
        }
        return (float) $text;
    }

    public static function numberSql(int|float $n): string
    {
        if (is_int($n)) {
            return (string) $n;
        }
        if (!is_finite($n)) {
            throw new TranslateError('a number out of range');
        }
        $text = var_export($n, true);
        return str_contains($text, 'E') || str_contains($text, 'e') ? "'" . $text . "'::double precision" : $text;
    }

    /**
     * A date/datetime string as PostgreSQL should store it: zero dates and '' as -infinity
     * (MySQL's non-strict mode stores what it cannot read as the zero date), null when it is
     * not a date at all.
     */
    public static function mysqlDatetime(string $value, bool $storing = false): ?string
    {
        $v = trim($value);
        if (preg_match('/^0000-00-00(?:[ T]00:00:00(?:\.0+)?)?$/', $v)) {
            return '-infinity';
        }
        if ($v === '') {
            return $storing ? '-infinity' : null;
        }
        if (!preg_match('/^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.\d+)?)?)?$/', $v, $m)) {
            return null;
        }
        if (!checkdate((int) $m[2], (int) $m[3], (int) $m[1]) || (int) $m[1] === 0
            || (isset($m[4]) && ((int) $m[4] > 23 || (int) $m[5] > 59 || (int) ($m[6] ?? 0) > 59))) {
            // Stored, non-strict MySQL keeps the zero date; used as a value it is NULL.
            return $storing ? '-infinity' : null;
        }
        return $v;
    }

    // ------------------------------------------------------------------ expressions

    public function expr(Ast\Expr $e, Scope $scope, string $clause): Typed
    {
        switch (true) {
            case $e instanceof Ast\Literal:
                return $this->literal($e);
            case $e instanceof Ast\ColumnRef:
                return $this->column($e, $scope, $clause);
            case $e instanceof Ast\Binary:
                return $this->binary($e, $scope, $clause);
            case $e instanceof Ast\Unary:
                return $this->unary($e, $scope, $clause);
            case $e instanceof Ast\Like:
                return $this->like($e, $scope, $clause);
            case $e instanceof Ast\Regexp:
                return $this->regexp($e, $scope, $clause);
            case $e instanceof Ast\In:
                return $this->in($e, $scope, $clause);
            case $e instanceof Ast\Between:
                $x = $this->expr($e->expr, $scope, $clause);
                $low = $this->expr($e->low, $scope, $clause);
                $high = $this->expr($e->high, $scope, $clause);
                $sql = '(' . $this->compare('>=', $x, $low) . ' AND ' . $this->compare('<=', $x, $high) . ')';
                return new Typed($e->not ? '(NOT ' . $sql . ')' : $sql, 'bool');
            case $e instanceof Ast\IsTest:
                return $this->isTest($e, $scope, $clause);
            case $e instanceof Ast\FunctionCall:
                return $this->call($e, $scope, $clause);
            case $e instanceof Ast\Cast:
                return $this->cast($e, $scope, $clause);
            case $e instanceof Ast\CaseExpr:
                return $this->caseExpr($e, $scope, $clause);
            case $e instanceof Ast\Exists:
                [$sql] = $this->selects->subquery($e->query, $scope);
                return new Typed(($e->not ? 'NOT ' : '') . 'EXISTS (' . $sql . ')', 'bool', null, false, false);
            case $e instanceof Ast\Subquery:
                [$sql, $types] = $this->selects->subquery($e->query, $scope);
                return new Typed('(' . $sql . ')', $types[0] ?? 'text');
            case $e instanceof Ast\Collate:
                $x = $this->expr($e->expr, $scope, $clause);
                $collation = str_ends_with(strtolower($e->collation), '_bin') || strtolower($e->collation) === 'binary'
                    ? '"C"' : 'berth_mysql_ci';
                return new Typed('(' . $this->text($x) . ' COLLATE ' . $collation . ')', 'text', null, false, true, $collation === '"C"');
            case $e instanceof Ast\Tuple:
                $items = array_map(fn (Ast\Expr $i): string => $this->expr($i, $scope, $clause)->sql, $e->items);
                return new Typed('(' . implode(', ', $items) . ')', 'tuple');
            case $e instanceof Ast\Variable:
                return $this->variable($e);
            case $e instanceof Ast\Star:
                throw new TranslateError('* used as a value');
            case $e instanceof Ast\Interval:
                throw new TranslateError('INTERVAL outside date arithmetic');
            case $e instanceof Ast\DefaultValue:
                throw new TranslateError('DEFAULT outside INSERT or UPDATE values');
        }
        throw new TranslateError('the expression ' . (new \ReflectionClass($e))->getShortName());
    }

    public function literal(Ast\Literal $e): Typed
    {
        switch ($e->kind) {
            case 'string':
                return new Typed(Sql::literal($e->value), 'text', $e->value, false, false);
            case 'number':
                $v = $e->value;
                $type = preg_match('/^\d+$/', $v) ? 'int' : (stripos($v, 'e') !== false ? 'float' : 'num');
                if ($type === 'int' && strlen(ltrim($v, '0')) > 18) {
                    $type = 'num';
                }
                $sql = $type === 'float' ? "'" . $v . "'::double precision" : $v;
                return new Typed($sql, $type, null, true, false);
            case 'null':
                return new Typed('NULL', 'null');
            case 'bool':
                return new Typed($e->value === '1' ? 'TRUE' : 'FALSE', 'bool', null, false, false);
            case 'hex':
                $hex = strlen($e->value) % 2 ? '0' . $e->value : $e->value;
                $bytes = hex2bin($hex);
                if ($bytes === false) {
                    throw new TranslateError('the hex literal ' . $e->value);
                }
                return new Typed(Sql::literal($bytes), 'text', $bytes, false, false);
        }
        throw new TranslateError('a literal of kind ' . $e->kind);
    }

    private function variable(Ast\Variable $e): Typed
    {
        $name = strtolower($e->name);
        if ($e->system) {
            if (!array_key_exists($name, $this->variables)) {
                throw new MysqlError(1193, "Unknown system variable '" . $e->name . "'");
            }
            $value = $this->variables[$name];
        } else {
            $value = $this->userVariables[$name] ?? null;
        }
        if ($value === null) {
            return new Typed('NULL', 'null');
        }
        if (preg_match('/^-?\d{1,18}$/', $value)) {
            return new Typed($value, 'int', null, true, false);
        }
        return new Typed(Sql::literal($value), 'text', $value, false, false);
    }

    /** Resolves a column reference; null when it names nothing in scope. */
    public function resolve(Ast\ColumnRef $e, Scope $scope, string $clause): ?array
    {
        for ($s = $scope, $depth = 0; $s !== null; $s = $s->outer, $depth++) {
            if ($e->table !== null) {
                $source = $s->source($e->table);
                if ($source === null) {
                    continue;
                }
                $column = Scope::columnOf($source, $e->column);
                if ($column === null) {
                    throw MysqlError::unknownColumn($e->table . '.' . $e->column, $clause);
                }
                return [$source, $column, $s, $depth];
            }
            $found = null;
            foreach ($s->sources as $source) {
                $column = Scope::columnOf($source, $e->column);
                if ($column !== null) {
                    if ($found !== null) {
                        throw MysqlError::ambiguousColumn($e->column, $clause);
                    }
                    $found = [$source, $column, $s, $depth];
                }
            }
            if ($found !== null) {
                return $found;
            }
        }
        return null;
    }

    private function column(Ast\ColumnRef $e, Scope $scope, string $clause): Typed
    {
        if ($e->column === '*') {
            throw new TranslateError($e->table . '.* used as a value');
        }
        $resolved = $this->resolve($e, $scope, $clause);
        if ($resolved === null) {
            if ($e->table === null && isset($scope->aliases[strtolower($e->column)])) {
                return $scope->aliases[strtolower($e->column)];
            }
            throw MysqlError::unknownColumn(($e->table !== null ? $e->table . '.' : '') . $e->column, $clause);
        }
        [$source, $column, $owner] = $resolved;
        if ($this->assigned !== [] && isset($this->assigned[strtolower($source['name'] . '.' . $column['name'])])) {
            return $this->assigned[strtolower($source['name'] . '.' . $column['name'])];
        }
        $sql = Sql::ident($source['name']) . '.' . Sql::ident($column['name']);
        $typed = new Typed($sql, $column['type'], null, false, $column['nullable'], $column['binary'] ?? false, true);
        if ($owner === $scope && $scope->grouped !== null && $this->aggregateDepth === 0) {
            $key = strtolower($source['name'] . '.' . $column['name']);
            if (!isset($scope->grouped[$key]) && !isset($scope->determined[strtolower($source['name'])])) {
                // MySQL (without ONLY_FULL_GROUP_BY) answers any value of the group.
                $typed->sql = 'min(' . $sql . ')';
            }
        }
        return $typed;
    }

    public function compare(string $op, Typed $a, Typed $b): string
    {
        $pgOp = match ($op) {
            '=' => '=', '!=' => '<>', '<' => '<', '<=' => '<=', '>' => '>', '>=' => '>=',
            '<=>' => 'IS NOT DISTINCT FROM',
            default => throw new TranslateError('the comparison ' . $op),
        };
        [$l, $r] = $this->comparable($a, $b);
        return '(' . $l . ' ' . $pgOp . ' ' . $r . $this->textCollation($a, $b) . ')';
    }

    /**
     * Text compared with text where no column gives the collation (two literals, functions):
     * MySQL compares under the connection's case-insensitive collation, PostgreSQL under "C".
     */
    private function textCollation(Typed ...$values): string
    {
        $column = false;
        $binary = false;
        foreach ($values as $v) {
            if ($v->type !== 'text' && $v->type !== 'null') {
                return '';
            }
            $column = $column || $v->column;
            $binary = $binary || $v->binary;
        }
        if ($binary) {
            // MySQL: a _bin side makes the comparison binary (and a ci column against a _bin
            // one is no error).
            return ' COLLATE "C"';
        }
        return $column ? '' : ' COLLATE berth_mysql_ci';
    }

    /** Both sides in one comparable form, converted as MySQL converts them. */
    public function comparable(Typed $a, Typed $b): array
    {
        if ($a->type === 'null' || $b->type === 'null' || $a->type === $b->type || $a->type === 'tuple') {
            return [$a->sql, $b->sql];
        }
        if ($a->isNumeric() && $b->isNumeric()) {
            return [$a->type === 'bool' ? $this->num($a) : $a->sql, $b->type === 'bool' ? $this->num($b) : $b->sql];
        }
        if ($a->isTemporal() && $b->type === 'text') {
            return [$a->sql, $this->temporalOperand($b)];
        }
        if ($b->isTemporal() && $a->type === 'text') {
            return [$this->temporalOperand($a), $b->sql];
        }
        if ($a->isTemporal() && $b->isTemporal()) {
            return [$a->sql, $b->sql];
        }
        if (($a->isNumeric() && $b->type === 'text') || ($b->isNumeric() && $a->type === 'text')) {
            return [$this->num($a), $this->num($b)];
        }
        return [$this->text($a), $this->text($b)];
    }

    private function temporalOperand(Typed $t): string
    {
        if ($t->string !== null) {
            $v = self::mysqlDatetime($t->string);
            // Untyped, so that PostgreSQL reads it as the column's type and uses its index.
            return $v === null ? Sql::literal($t->string) : Sql::literal($v);
        }
        return 'berth_mysql_to_datetime(' . $t->sql . ')';
    }

    private function binary(Ast\Binary $e, Scope $scope, string $clause): Typed
    {
        $op = $e->op;
        if ($op === 'AND' || $op === 'OR' || $op === 'XOR') {
            $l = $this->bool($this->expr($e->left, $scope, $clause));
            $r = $this->bool($this->expr($e->right, $scope, $clause));
            $pg = $op === 'XOR' ? '<>' : $op;
            return new Typed('(' . $l . ' ' . $pg . ' ' . $r . ')', 'bool');
        }
        if (($op === '+' || $op === '-') && ($e->right instanceof Ast\Interval || ($op === '+' && $e->left instanceof Ast\Interval))) {
            $interval = $e->right instanceof Ast\Interval ? $e->right : $e->left;
            $base = $e->right instanceof Ast\Interval ? $e->left : $e->right;
            \assert($interval instanceof Ast\Interval);
            return $this->dateAdd($this->expr($base, $scope, $clause), $interval, $op, $scope, $clause);
        }
        $a = $this->expr($e->left, $scope, $clause);
        $b = $this->expr($e->right, $scope, $clause);
        switch ($op) {
            case '=': case '!=': case '<': case '<=': case '>': case '>=': case '<=>':
                return new Typed($this->compare($op, $a, $b), 'bool', null, false, $op !== '<=>' && ($a->nullable || $b->nullable));
            case '+': case '-': case '*':
                $type = $this->arithmeticType($a, $b);
                return new Typed('(' . $this->num($a) . ' ' . $op . ' ' . $this->num($b) . ')', $type);
            case '/':
                $sql = '(' . $this->num($a) . ')::numeric / NULLIF(' . $this->num($b) . ', 0)';
                if ($this->numType($a) === 'int' && $this->numType($b) === 'int') {
                    $sql = 'round(' . $sql . ', 4)';
                }
                return new Typed('(' . $sql . ')', 'num');
            case 'DIV':
                return new Typed('trunc((' . $this->num($a) . ')::numeric / NULLIF(' . $this->num($b) . ', 0))::bigint', 'int');
            case '%':
                if ($this->numType($a) === 'int' && $this->numType($b) === 'int') {
                    return new Typed('mod(' . $this->num($a) . ', NULLIF(' . $this->num($b) . ', 0))', 'int');
                }
                return new Typed('mod((' . $this->num($a) . ')::numeric, NULLIF((' . $this->num($b) . ')::numeric, 0))', 'num');
            case '<<': case '>>':
                return new Typed('((' . $this->num($a) . ')::bigint ' . $op . ' (' . $this->num($b) . ')::integer)', 'int');
            case '&': case '|': case '^':
                $pg = $op === '^' ? '#' : $op;
                return new Typed('((' . $this->num($a) . ')::bigint ' . $pg . ' (' . $this->num($b) . ')::bigint)', 'int');
        }
        throw new TranslateError('the operator ' . $op);
    }

    private function arithmeticType(Typed $a, Typed $b): string
    {
        $ta = $this->numType($a);
        $tb = $this->numType($b);
        if ($ta === 'float' || $tb === 'float') {
            return 'float';
        }
        return $ta === 'int' && $tb === 'int' ? 'int' : 'num';
    }

    private function unary(Ast\Unary $e, Scope $scope, string $clause): Typed
    {
        $x = $this->expr($e->operand, $scope, $clause);
        switch ($e->op) {
            case 'NOT': case '!':
                return new Typed('(NOT ' . $this->bool($x) . ')', 'bool');
            case '-':
                if ($x->number) {
                    return new Typed('-' . $x->sql, $x->type, null, true, false);
                }
                return new Typed('(-' . $this->num($x) . ')', $this->numType($x));
            case '+':
                return $x;
            case '~':
                return new Typed('(~(' . $this->num($x) . ')::bigint)', 'int');
            case 'BINARY':
                return new Typed('(' . $this->text($x) . ' COLLATE "C")', 'text', $x->string, false, $x->nullable, true);
        }
        throw new TranslateError('the operator ' . $e->op);
    }

    /** LIKE: case-insensitive as under MySQL's _ci collations (ILIKE on an ICU collation). */
    private function like(Ast\Like $e, Scope $scope, string $clause): Typed
    {
        $l = $this->expr($e->left, $scope, $clause);
        $p = $this->expr($e->pattern, $scope, $clause);
        $left = $this->text($l);
        $pattern = $this->text($p);
        if ($l->binary || $p->binary) {
            // LIKE BINARY / a _bin side: MySQL compares byte for byte.
            $sql = '(' . $left . ' COLLATE "C" ' . ($e->not ? 'NOT LIKE ' : 'LIKE ') . $pattern;
        } elseif ($p->string !== null && $e->escape === null) {
            // A literal pattern runs as the equivalent case- and accent-insensitive regular
            // expression: PostgreSQL's ~* folds case per character, ILIKE lowercases whole
            // values first (twice the time on post_content for a search) and keeps accents.
            return new Typed('(' . $left . ' COLLATE berth_mysql_like ' . ($e->not ? '!~* ' : '~* ')
                . Sql::literal(LikePattern::toRegex($p->string)) . ')', 'bool');
        } else {
            $sql = '(' . $left . ' COLLATE berth_mysql_like ' . ($e->not ? 'NOT ILIKE ' : 'ILIKE ') . $pattern;
        }
        if ($e->escape !== null) {
            $sql .= ' ESCAPE ' . $this->text($this->expr($e->escape, $scope, $clause));
        }
        return new Typed($sql . ')', 'bool');
    }

    private function regexp(Ast\Regexp $e, Scope $scope, string $clause): Typed
    {
        $l = $this->expr($e->left, $scope, $clause);
        $left = $this->text($l);
        $p = $this->expr($e->pattern, $scope, $clause);
        if ($p->string !== null) {
            // MySQL's (Henry Spencer) word boundaries; PostgreSQL's AREs spell them \m and \M.
            $pattern = Sql::literal(str_replace(['[[:<:]]', '[[:>:]]'], ['\\m', '\\M'], $p->string));
        } else {
            $pattern = $this->text($p);
        }
        if ($l->binary || $p->binary) {
            return new Typed('(' . $left . ' COLLATE "C" ' . ($e->not ? '!~ ' : '~ ') . $pattern . ')', 'bool');
        }
        return new Typed('(' . $left . ' COLLATE berth_mysql_like ' . ($e->not ? '!~* ' : '~* ') . $pattern . ')', 'bool');
    }

    private function in(Ast\In $e, Scope $scope, string $clause): Typed
    {
        $left = $this->expr($e->left, $scope, $clause);
        if ($e->subquery !== null) {
            [$sql, $types] = $this->selects->subquery($e->subquery, $scope);
            $type = $types[0] ?? 'text';
            $l = $left->sql;
            if ($left->isNumeric() && $type === 'text') {
                $sql = 'SELECT berth_mysql_to_number(s.c) FROM (' . $sql . ') AS s(c)';
            } elseif ($left->type === 'text' && in_array($type, ['int', 'num', 'float'], true)) {
                $l = $this->num($left);
            }
            return new Typed('(' . $l . ($e->not ? ' NOT IN (' : ' IN (') . $sql . '))', 'bool');
        }
        $items = [];
        foreach ($e->list as $item) {
            $items[] = $this->expr($item, $scope, $clause);
        }
        $allText = $left->type === 'text';
        $allNumeric = $left->isNumeric();
        foreach ($items as $item) {
            if ($item->type === 'null') {
                continue;
            }
            $allText = $allText && $item->type === 'text';
            $allNumeric = $allNumeric && ($item->isNumeric() || $item->string !== null);
        }
        if ($allText || $left->type === 'null') {
            $sqls = array_map(static fn (Typed $t): string => $t->sql, $items);
            $l = $left->sql . ($left->type === 'text' ? $this->textCollation($left) : '');
        } elseif ($allNumeric) {
            $sqls = array_map(fn (Typed $t): string => $t->type === 'null' ? 'NULL' : $this->num($t), $items);
            $l = $this->num($left);
        } else {
            // Mixed kinds: each item compared on its own, as MySQL does.
            $parts = array_map(fn (Typed $t): string => $this->compare('=', $left, $t), $items);
            $sql = '(' . implode(' OR ', $parts) . ')';
            return new Typed($e->not ? '(NOT ' . $sql . ')' : $sql, 'bool');
        }
        return new Typed('(' . $l . ($e->not ? ' NOT IN (' : ' IN (') . implode(', ', $sqls) . '))', 'bool');
    }

    private function isTest(Ast\IsTest $e, Scope $scope, string $clause): Typed
    {
        $x = $this->expr($e->expr, $scope, $clause);
        $not = $e->not ? 'NOT ' : '';
        if ($e->what === 'NULL') {
            return new Typed('(' . $x->sql . ' IS ' . $not . 'NULL)', 'bool', null, false, false);
        }
        return new Typed('(' . $this->bool($x) . ' IS ' . $not . $e->what . ')', 'bool', null, false, false);
    }

    private function caseExpr(Ast\CaseExpr $e, Scope $scope, string $clause): Typed
    {
        $operand = $e->operand !== null ? $this->expr($e->operand, $scope, $clause) : null;
        $conditions = [];
        $results = [];
        foreach ($e->whens as [$when, $then]) {
            $w = $this->expr($when, $scope, $clause);
            $conditions[] = $operand !== null ? $this->compare('=', $operand, $w) : $this->bool($w);
            $results[] = $this->expr($then, $scope, $clause);
        }
        if ($e->else !== null) {
            $results[] = $this->expr($e->else, $scope, $clause);
        }
        [$sqls, $type] = $this->unify($results);
        $sql = 'CASE';
        foreach ($conditions as $i => $c) {
            $sql .= ' WHEN ' . $c . ' THEN ' . $sqls[$i];
        }
        if ($e->else !== null) {
            $sql .= ' ELSE ' . $sqls[count($conditions)];
        }
        return new Typed($sql . ' END', $type);
    }

    /**
     * Values that must share one PostgreSQL type (CASE, IF, COALESCE): MySQL gives text when
     * kinds mix, a number when all are numbers.
     *
     * @param Typed[] $values
     * @return array{0: string[], 1: string}
     */
    public function unify(array $values): array
    {
        $types = [];
        foreach ($values as $v) {
            if ($v->type !== 'null') {
                $types[$v->type] = true;
            }
        }
        if (count($types) === 0) {
            return [array_map(static fn (Typed $v): string => $v->sql, $values), 'null'];
        }
        if (count($types) === 1) {
            $type = array_key_first($types);
            return [array_map(static fn (Typed $v): string => $v->sql, $values), $type];
        }
        $numeric = true;
        $temporal = true;
        foreach (array_keys($types) as $t) {
            $numeric = $numeric && in_array($t, ['int', 'num', 'float', 'bool'], true);
            $temporal = $temporal && in_array($t, ['datetime', 'date'], true);
        }
        if ($numeric) {
            $type = isset($types['float']) ? 'float' : (isset($types['num']) ? 'num' : 'int');
            return [array_map(fn (Typed $v): string => $v->type === 'bool' ? $this->num($v) : $v->sql, $values), $type];
        }
        if ($temporal) {
            return [array_map(static fn (Typed $v): string => $v->sql . ($v->type === 'date' ? '::timestamp' : ''), $values), 'datetime'];
        }
        return [array_map(fn (Typed $v): string => $v->type === 'null' ? 'NULL' : $this->text($v), $values), 'text'];
    }

    private function dateAdd(Typed $base, Ast\Interval $interval, string $op, Scope $scope, string $clause): Typed
    {
        $unit = self::UNITS[$interval->unit] ?? throw new TranslateError('INTERVAL ... ' . $interval->unit);
        $n = $this->num($this->expr($interval->value, $scope, $clause));
        return new Typed('(' . $this->datetime($base) . ' ' . $op . ' (' . $n . ') * INTERVAL ' . Sql::literal($unit) . ')', 'datetime');
    }

    private function cast(Ast\Cast $e, Scope $scope, string $clause): Typed
    {
        $x = $this->expr($e->expr, $scope, $clause);
        switch ($e->type) {
            case 'UNSIGNED':
                // MySQL wraps a negative value around 2^64.
                $signed = $this->cast(new Ast\Cast($e->expr, 'SIGNED'), $scope, $clause);
                if ($signed->number && !str_starts_with($signed->sql, '-')) {
                    return $signed;
                }
                return new Typed('CASE WHEN ' . $signed->sql . ' < 0 THEN ' . $signed->sql . '::numeric + 18446744073709551616 ELSE '
                    . $signed->sql . '::numeric END', 'num');
            case 'SIGNED': case 'INTEGER': case 'INT':
                if ($x->type === 'text') {
                    if ($x->string !== null) {
                        $n = self::mysqlNumber($x->string);
                        return new Typed((string) (is_int($n) ? $n : (int) $n), 'int', null, true, false);
                    }
                    return new Typed('berth_mysql_to_signed(' . $x->sql . ')', 'int');
                }
                if ($x->type === 'int' || $x->type === 'null') {
                    return $x;
                }
                if ($x->isTemporal()) {
                    throw new TranslateError('CAST of a date AS ' . $e->type);
                }
                return new Typed('round(' . $this->num($x) . ')::bigint', 'int');
            case 'DECIMAL': case 'NUMERIC':
                $precision = $e->length ?? 10;
                $scale = $e->scale ?? 0;
                return new Typed('(' . $this->num($x) . ')::numeric(' . $precision . ', ' . $scale . ')', 'num');
            case 'DOUBLE': case 'FLOAT': case 'REAL':
                return new Typed('(' . $this->num($x) . ')::double precision', 'float');
            case 'CHAR': case 'NCHAR': case 'VARCHAR': case 'TEXT':
                if ($e->charset !== null && strtolower($e->charset) === 'binary') {
                    return $this->cast(new Ast\Cast($e->expr, 'BINARY', $e->length), $scope, $clause);
                }
                $sql = $this->text($x);
                if ($e->length !== null) {
                    $sql = 'left(' . $sql . ', ' . $e->length . ')';
                }
                return new Typed($sql, 'text', $x->string !== null && $e->length === null ? $x->string : null);
            case 'BINARY':
                $sql = '(' . $this->text($x) . ' COLLATE "C")';
                if ($e->length !== null) {
                    $sql = 'left(' . $sql . ', ' . $e->length . ')';
                }
                return new Typed($sql, 'text', null, false, true, true);
            case 'DATE':
                if ($x->type === 'text' && $x->string === null) {
                    return new Typed('berth_mysql_to_date(' . $x->sql . ')', 'date');
                }
                return new Typed('(' . $this->datetime($x) . ')::date', 'date');
            case 'DATETIME': case 'TIMESTAMP':
                return new Typed('(' . $this->datetime($x) . ')::timestamp(0)', 'datetime');
            case 'TIME':
                return new Typed('(' . $this->datetime($x) . ')::time(0)', 'time');
        }
        throw new TranslateError('CAST(... AS ' . $e->type . ')');
    }

    // ------------------------------------------------------------------ functions

    private function call(Ast\FunctionCall $e, Scope $scope, string $clause): Typed
    {
        $name = $e->name;
        if (isset(self::AGGREGATES[$name])) {
            return $this->aggregate($e, $scope, $clause);
        }
        $args = fn (): array => array_map(fn (Ast\Expr $a): Typed => $this->expr($a, $scope, $clause), $e->args);
        $arity = function (int $min, ?int $max = null) use ($e, $name): void {
            $n = count($e->args);
            if ($n < $min || $n > ($max ?? $min)) {
                throw new MysqlError(1582, "Incorrect parameter count in the call to native function '" . strtolower($name) . "'");
            }
        };
        switch ($name) {
            // --- conditions and NULLs
            case 'IF':
                $arity(3);
                [$c, $a, $b] = $args();
                [[$sa, $sb], $type] = $this->unify([$a, $b]);
                return new Typed('CASE WHEN ' . $this->bool($c) . ' THEN ' . $sa . ' ELSE ' . $sb . ' END', $type);
            case 'IFNULL': case 'COALESCE':
                if ($name === 'IFNULL') {
                    $arity(2);
                }
                [$sqls, $type] = $this->unify($args());
                return new Typed('COALESCE(' . implode(', ', $sqls) . ')', $type);
            case 'NULLIF':
                $arity(2);
                [$a, $b] = $args();
                [$l, $r] = $this->comparable($a, $b);
                return new Typed('NULLIF(' . $l . ', ' . $r . ')', $a->type);
            case 'ISNULL':
                $arity(1);
                return new Typed('(' . $args()[0]->sql . ' IS NULL)', 'bool', null, false, false);
            case 'GREATEST': case 'LEAST':
                $values = $args();
                [$sqls, $type] = $this->unify($values);
                $nulls = implode(' OR ', array_map(static fn (string $s): string => $s . ' IS NULL', $sqls));
                return new Typed('CASE WHEN ' . $nulls . ' THEN NULL ELSE ' . $name . '(' . implode(', ', $sqls) . ') END', $type);
            case 'FIELD':
                $values = $args();
                $x = array_shift($values);
                $sql = 'CASE';
                foreach ($values as $i => $v) {
                    $sql .= ' WHEN ' . $this->compare('=', $x, $v) . ' THEN ' . ($i + 1);
                }
                return new Typed($sql . ' ELSE 0 END', 'int', null, false, false);
            // --- strings
            case 'CONCAT':
                $parts = array_map(fn (Typed $t): string => $this->text($t), $args());
                return new Typed(count($parts) === 1 ? $parts[0] : '(' . implode(' || ', $parts) . ')', 'text');
            case 'CONCAT_WS':
                $parts = array_map(fn (Typed $t): string => $this->text($t), $args());
                return new Typed('concat_ws(' . implode(', ', $parts) . ')', 'text');
            case 'LENGTH': case 'OCTET_LENGTH':
                $arity(1);
                return new Typed('octet_length(' . $this->text($args()[0]) . ')', 'int');
            case 'CHAR_LENGTH': case 'CHARACTER_LENGTH':
                $arity(1);
                return new Typed('char_length(' . $this->text($args()[0]) . ')', 'int');
            case 'LOWER': case 'LCASE': case 'UPPER': case 'UCASE':
                $arity(1);
                $fn = $name === 'LOWER' || $name === 'LCASE' ? 'lower' : 'upper';
                return new Typed($fn . '(' . $this->text($args()[0]) . ')', 'text');
            case 'TRIM': case 'LTRIM': case 'RTRIM':
                $arity(1);
                $fn = ['TRIM' => 'btrim', 'LTRIM' => 'ltrim', 'RTRIM' => 'rtrim'][$name];
                return new Typed($fn . '(' . $this->text($args()[0]) . ", ' ')", 'text');
            case 'SUBSTRING': case 'SUBSTR': case 'MID':
                $arity(2, 3);
                $a = $args();
                $s = $this->text($a[0]);
                if ($a[1]->number && !str_starts_with($a[1]->sql, '-') && $a[1]->sql !== '0' && (!isset($a[2]) || $a[2]->number)) {
                    return new Typed('substr(' . $s . ', ' . $a[1]->sql . (isset($a[2]) ? ', ' . $a[2]->sql : '') . ')', 'text');
                }
                return new Typed('berth_mysql_substring(' . $s . ', (' . $this->num($a[1]) . ')::bigint' . (isset($a[2]) ? ', (' . $this->num($a[2]) . ')::bigint' : '') . ')', 'text');
            case 'LEFT': case 'RIGHT':
                $arity(2);
                [$s, $n] = $args();
                return new Typed(strtolower($name) . '(' . $this->text($s) . ', greatest((' . $this->num($n) . ')::integer, 0))', 'text');
            case 'REPLACE':
                $arity(3);
                [$s, $from, $to] = $args();
                return new Typed('replace(' . $this->text($s) . ' COLLATE "C", ' . $this->text($from) . ', ' . $this->text($to) . ')', 'text');
            case 'LOCATE': case 'POSITION': case 'INSTR':
                $a = $args();
                $arity(2, $name === 'LOCATE' ? 3 : 2);
                [$needle, $hay] = $name === 'INSTR' ? [$a[1], $a[0]] : [$a[0], $a[1]];
                // Case-insensitive as under MySQL's ci collations (binary sides compare bytes).
                $binary = $hay->binary || $needle->binary;
                $h = $binary ? '(' . $this->text($hay) . ' COLLATE "C")' : 'lower(' . $this->text($hay) . ' COLLATE berth_mysql_like)';
                $n = $binary ? $this->text($needle) : 'lower(' . $this->text($needle) . ' COLLATE berth_mysql_like)';
                if (isset($a[2])) {
                    $p = '(' . $this->num($a[2]) . ')::integer';
                    return new Typed('CASE WHEN strpos(substr(' . $h . ', ' . $p . '), ' . $n . ') = 0 THEN 0 ELSE strpos(substr(' . $h . ', ' . $p . '), ' . $n . ') + ' . $p . ' - 1 END', 'int');
                }
                return new Typed('strpos(' . $h . ', ' . $n . ')', 'int');
            case 'SUBSTRING_INDEX':
                $arity(3);
                [$s, $d, $n] = $args();
                return new Typed('berth_mysql_substring_index(' . $this->text($s) . ', ' . $this->text($d) . ', (' . $this->num($n) . ')::bigint)', 'text');
            case 'FIND_IN_SET':
                $arity(2);
                [$s, $list] = $args();
                return new Typed('berth_mysql_find_in_set(' . $this->text($s) . ', ' . $this->text($list) . ')', 'int');
            case 'LPAD': case 'RPAD':
                $arity(3);
                [$s, $n, $pad] = $args();
                return new Typed(strtolower($name) . '(' . $this->text($s) . ', (' . $this->num($n) . ')::integer, ' . $this->text($pad) . ')', 'text');
            case 'REPEAT':
                $arity(2);
                [$s, $n] = $args();
                return new Typed('repeat(' . $this->text($s) . ', (' . $this->num($n) . ')::integer)', 'text');
            case 'SPACE':
                $arity(1);
                return new Typed("repeat(' ', (" . $this->num($args()[0]) . ')::integer)', 'text');
            case 'REVERSE':
                $arity(1);
                return new Typed('reverse(' . $this->text($args()[0]) . ')', 'text');
            case 'MD5':
                $arity(1);
                return new Typed('md5(' . $this->text($args()[0]) . ')', 'text');
            case 'ASCII': case 'ORD':
                $arity(1);
                return new Typed('ascii(' . $this->text($args()[0]) . ')', 'int');
            case 'CHAR':
                $parts = array_map(fn (Typed $t): string => 'chr((' . $this->num($t) . ')::integer)', $args());
                return new Typed('(' . implode(' || ', $parts) . ')', 'text');
            case 'STRCMP':
                $arity(2);
                [$a, $b] = $args();
                $ci = $this->textCollation($a, $b);
                $l = $this->text($a);
                $r = $this->text($b);
                return new Typed('CASE WHEN ' . $l . ' IS NULL OR ' . $r . ' IS NULL THEN NULL WHEN (' . $l . ' < ' . $r . $ci . ') THEN -1 WHEN ('
                    . $l . ' > ' . $r . $ci . ') THEN 1 ELSE 0 END', 'int');
            case 'ELT':
                $values = $args();
                $n = array_shift($values);
                $sql = 'CASE (' . $this->num($n) . ')';
                foreach ($values as $i => $v) {
                    $sql .= ' WHEN ' . ($i + 1) . ' THEN ' . $this->text($v);
                }
                return new Typed($sql . ' END', 'text');
            case 'HEX':
                $arity(1);
                $x = $args()[0];
                if ($x->isNumeric()) {
                    return new Typed('upper(to_hex((' . $this->num($x) . ')::bigint))', 'text');
                }
                return new Typed("upper(encode(convert_to(" . $this->text($x) . ", 'UTF8'), 'hex'))", 'text');
            case 'UNHEX':
                $arity(1);
                return new Typed("convert_from(decode(" . $this->text($args()[0]) . ", 'hex'), 'UTF8')", 'text');
            case 'TO_BASE64':
                $arity(1);
                return new Typed("encode(convert_to(" . $this->text($args()[0]) . ", 'UTF8'), 'base64')", 'text');
            case 'FROM_BASE64':
                $arity(1);
                return new Typed("convert_from(decode(" . $this->text($args()[0]) . ", 'base64'), 'UTF8')", 'text');
            case 'SHA2':
                $arity(2);
                [$x, $bits] = $args();
                $fn = ['224' => 'sha224', '256' => 'sha256', '0' => 'sha256', '384' => 'sha384', '512' => 'sha512'][$bits->sql] ?? null;
                if ($fn === null) {
                    return new Typed('NULL::text', 'text');
                }
                return new Typed("encode(" . $fn . "(convert_to(" . $this->text($x) . ", 'UTF8')), 'hex')", 'text');
            case 'TIME_TO_SEC':
                $arity(1);
                $t = $args()[0];
                $time = $t->type === 'time' ? $t->sql : ($t->type === 'text' ? '(' . $t->sql . ')::time' : '(' . $this->datetime($t) . ')::time');
                return new Typed('extract(epoch FROM ' . $time . ')::integer', 'int');
            case 'UUID':
                $arity(0);
                return new Typed('gen_random_uuid()::text', 'text', null, false, false);
            // --- numbers
            case 'ABS': case 'SIGN': case 'SQRT': case 'EXP': case 'LN': case 'LOG10':
            case 'SIN': case 'COS': case 'TAN': case 'ASIN': case 'ACOS': case 'ATAN': case 'DEGREES': case 'RADIANS':
                $arity(1);
                $x = $args()[0];
                $type = $name === 'ABS' ? $this->numType($x) : ($name === 'SIGN' ? 'int' : 'float');
                return new Typed(strtolower($name) . '(' . $this->num($x) . ')' . ($name === 'SIGN' ? '::integer' : ''), $type);
            case 'LOG':
                $arity(1, 2);
                $a = $args();
                return count($a) === 1
                    ? new Typed('ln(' . $this->num($a[0]) . ')', 'float')
                    : new Typed('log((' . $this->num($a[0]) . ')::numeric, (' . $this->num($a[1]) . ')::numeric)', 'num');
            case 'LOG2':
                $arity(1);
                return new Typed('log(2, (' . $this->num($args()[0]) . ')::numeric)', 'num');
            case 'CEIL': case 'CEILING': case 'FLOOR':
                $arity(1);
                $x = $args()[0];
                $fn = $name === 'FLOOR' ? 'floor' : 'ceil';
                return new Typed($this->numType($x) === 'int' ? $this->num($x) : $fn . '(' . $this->num($x) . ')::bigint', 'int');
            case 'ROUND':
                $arity(1, 2);
                $a = $args();
                if ($this->numType($a[0]) === 'int' && count($a) === 1) {
                    return $a[0];
                }
                return new Typed('round((' . $this->num($a[0]) . ')::numeric' . (isset($a[1]) ? ', (' . $this->num($a[1]) . ')::integer' : '') . ')', 'num');
            case 'TRUNCATE':
                $arity(2);
                [$x, $d] = $args();
                return new Typed('trunc((' . $this->num($x) . ')::numeric, (' . $this->num($d) . ')::integer)', 'num');
            case 'MOD':
                $arity(2);
                return $this->binary(new Ast\Binary('%', $e->args[0], $e->args[1]), $scope, $clause);
            case 'POW': case 'POWER':
                $arity(2);
                [$x, $y] = $args();
                return new Typed('power((' . $this->num($x) . ')::double precision, (' . $this->num($y) . ')::double precision)', 'float');
            case 'PI':
                return new Typed('pi()', 'float', null, false, false);
            case 'RAND':
                $arity(0, 1);
                return new Typed('random()', 'float', null, false, false);
            // --- dates and times
            case 'NOW': case 'CURRENT_TIMESTAMP': case 'LOCALTIME': case 'LOCALTIMESTAMP': case 'SYSDATE': case 'UTC_TIMESTAMP':
                return new Typed(self::NOW, 'datetime', null, false, false);
            case 'CURDATE': case 'CURRENT_DATE': case 'UTC_DATE':
                return new Typed("(CURRENT_TIMESTAMP AT TIME ZONE 'UTC')::date", 'date', null, false, false);
            case 'CURTIME': case 'CURRENT_TIME': case 'UTC_TIME':
                return new Typed("(CURRENT_TIMESTAMP AT TIME ZONE 'UTC')::time(0)", 'time', null, false, false);
            case 'YEAR': case 'MONTH': case 'DAY': case 'DAYOFMONTH': case 'HOUR': case 'MINUTE': case 'SECOND':
            case 'QUARTER': case 'DAYOFYEAR': case 'DAYOFWEEK': case 'WEEKDAY':
                $arity(1);
                $d = $this->datetime($args()[0]);
                $field = ['YEAR' => 'year', 'MONTH' => 'month', 'DAY' => 'day', 'DAYOFMONTH' => 'day', 'HOUR' => 'hour',
                    'MINUTE' => 'minute', 'SECOND' => 'second', 'QUARTER' => 'quarter', 'DAYOFYEAR' => 'doy',
                    'DAYOFWEEK' => 'dow', 'WEEKDAY' => 'isodow'][$name];
                $sql = 'berth_mysql_part(' . Sql::literal($field) . ', ' . $d . ')';
                if ($name === 'DAYOFWEEK') {
                    $sql = '(' . $sql . ' + 1)';
                } elseif ($name === 'WEEKDAY') {
                    $sql = '(' . $sql . ' - 1)';
                }
                return new Typed($sql, 'int');
            case 'WEEK': case 'WEEKOFYEAR': case 'YEARWEEK':
                $a = $args();
                if ($name === 'YEARWEEK') {
                    throw new TranslateError('the function YEARWEEK()');
                }
                $arity(1, $name === 'WEEK' ? 2 : 1);
                $mode = $name === 'WEEKOFYEAR' ? '3' : (isset($a[1]) ? '(' . $this->num($a[1]) . ')::integer' : '0');
                return new Typed('berth_mysql_week(' . $this->datetime($a[0]) . ', ' . $mode . ')', 'int');
            case 'MONTHNAME': case 'DAYNAME':
                $arity(1);
                $fmt = $name === 'MONTHNAME' ? 'FMMonth' : 'FMDay';
                return new Typed('to_char(' . $this->datetime($args()[0]) . ", '" . $fmt . "')", 'text');
            case 'DATE':
                $arity(1);
                return new Typed('(' . $this->datetime($args()[0]) . ')::date', 'date');
            case 'TIME':
                $arity(1);
                return new Typed('(' . $this->datetime($args()[0]) . ')::time(0)', 'time');
            case 'DATE_ADD': case 'DATE_SUB': case 'ADDDATE': case 'SUBDATE':
                $arity(2);
                $op = $name === 'DATE_ADD' || $name === 'ADDDATE' ? '+' : '-';
                $interval = $e->args[1] instanceof Ast\Interval ? $e->args[1] : new Ast\Interval($e->args[1], 'DAY');
                return $this->dateAdd($this->expr($e->args[0], $scope, $clause), $interval, $op, $scope, $clause);
            case 'DATEDIFF':
                $arity(2);
                [$a, $b] = $args();
                return new Typed('((' . $this->datetime($a) . ')::date - (' . $this->datetime($b) . ')::date)', 'int');
            case 'TO_DAYS':
                $arity(1);
                return new Typed('((' . $this->datetime($args()[0]) . ")::date - DATE '0001-01-01' + 366)", 'int');
            case 'FROM_DAYS':
                $arity(1);
                return new Typed("(DATE '0001-01-01' + ((" . $this->num($args()[0]) . ')::integer - 366))', 'date');
            case 'LAST_DAY':
                $arity(1);
                return new Typed("(date_trunc('month', " . $this->datetime($args()[0]) . ") + INTERVAL '1 month - 1 day')::date", 'date');
            case 'UNIX_TIMESTAMP':
                $arity(0, 1);
                $a = $args();
                $d = isset($a[0]) ? $this->datetime($a[0]) : 'CURRENT_TIMESTAMP';
                return new Typed('floor(extract(epoch FROM ' . $d . '))::bigint', 'int');
            case 'FROM_UNIXTIME':
                $arity(1, 2);
                $a = $args();
                $d = new Typed("(to_timestamp(" . $this->num($a[0]) . ") AT TIME ZONE 'UTC')::timestamp(0)", 'datetime');
                return isset($a[1]) ? $this->dateFormat($d, $a[1]) : $d;
            case 'DATE_FORMAT':
                $arity(2);
                [$d, $f] = $args();
                return $this->dateFormat($d, $f);
            // --- the session
            case 'VERSION':
                return new Typed(Sql::literal($this->variables['version']), 'text', $this->variables['version'], false, false);
            case 'DATABASE': case 'SCHEMA':
                return new Typed(Sql::literal($this->database), 'text', $this->database, false, false);
            case 'USER': case 'CURRENT_USER': case 'SESSION_USER': case 'SYSTEM_USER':
                $user = $this->variables['berth_user'] ?? 'wordpress@localhost';
                return new Typed(Sql::literal($user), 'text', $user, false, false);
            case 'CONNECTION_ID':
                return new Typed('pg_backend_pid()', 'int', null, false, false);
            case 'VALUES':
                $arity(1);
                $ref = $e->args[0];
                if ($this->valuesTable === null || !$ref instanceof Ast\ColumnRef) {
                    throw new TranslateError('VALUES() outside ON DUPLICATE KEY UPDATE');
                }
                $column = Catalog::column($this->valuesTable, $ref->column)
                    ?? throw MysqlError::unknownColumn($ref->column, 'field list');
                return new Typed('EXCLUDED.' . Sql::ident($column['name']), Catalog::category($column), null, false, $column['nullable']);
            case 'LAST_INSERT_ID':
                if (count($e->args) === 1) {
                    // LAST_INSERT_ID(expr) sets insert_id to expr and answers it: in
                    // `ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id)` RETURNING already makes the
                    // touched row's id the insert_id.
                    return $args()[0];
                }
                throw new TranslateError('LAST_INSERT_ID() (the wpdb layer answers insert_id)');
            case 'FOUND_ROWS':
                throw new TranslateError('FOUND_ROWS() other than alone in SELECT FOUND_ROWS()');
        }
        throw new TranslateError('the function ' . $name . '()');
    }

    private function aggregate(Ast\FunctionCall $e, Scope $scope, string $clause): Typed
    {
        $this->aggregateDepth++;
        try {
            $name = $e->name;
            $distinct = $e->distinct ? 'DISTINCT ' : '';
            if ($name === 'COUNT') {
                if (count($e->args) === 1 && $e->args[0] instanceof Ast\Star) {
                    return new Typed('count(*)', 'int', null, false, false);
                }
                if (count($e->args) !== 1) {
                    throw new TranslateError('COUNT with ' . count($e->args) . ' arguments');
                }
                return new Typed('count(' . $distinct . $this->expr($e->args[0], $scope, $clause)->sql . ')', 'int', null, false, false);
            }
            if ($name === 'GROUP_CONCAT') {
                $parts = array_map(fn (Ast\Expr $a): string => $this->text($this->expr($a, $scope, $clause)), $e->args);
                $value = count($parts) === 1 ? $parts[0] : '(' . implode(' || ', $parts) . ')';
                $separator = $e->separator !== null ? $this->text($this->expr($e->separator, $scope, $clause)) : "','";
                $order = '';
                if ($e->orderBy !== []) {
                    $items = [];
                    foreach ($e->orderBy as $item) {
                        $items[] = $this->expr($item->expr, $scope, $clause)->sql . ($item->desc ? ' DESC' : '');
                    }
                    $order = ' ORDER BY ' . implode(', ', $items);
                }
                return new Typed('string_agg(' . $distinct . $value . ', ' . $separator . $order . ')', 'text');
            }
            if (count($e->args) !== 1) {
                throw new TranslateError($name . ' with ' . count($e->args) . ' arguments');
            }
            $x = $this->expr($e->args[0], $scope, $clause);
            switch ($name) {
                case 'ANY_VALUE':
                    // Any value of the group: min() is one.
                    $sql = $x->type === 'bool' ? $this->num($x) : $x->sql;
                    return new Typed('min(' . $sql . ')', $x->type === 'bool' ? 'int' : $x->type);
                case 'MIN': case 'MAX':
                    $sql = $x->type === 'bool' ? $this->num($x) : $x->sql;
                    return new Typed(strtolower($name) . '(' . $distinct . $sql . ')', $x->type === 'bool' ? 'int' : $x->type);
                case 'SUM':
                    return new Typed('sum(' . $distinct . $this->num($x) . ')', $this->numType($x) === 'float' ? 'float' : 'num');
                case 'AVG':
                    return new Typed('avg(' . $distinct . $this->num($x) . ')', $this->numType($x) === 'float' ? 'float' : 'num');
                case 'BIT_AND': case 'BIT_OR': case 'BIT_XOR':
                    if ($name === 'BIT_XOR') {
                        throw new TranslateError('the function BIT_XOR()');
                    }
                    return new Typed(strtolower($name) . '((' . $this->num($x) . ')::bigint)', 'int');
                default:
                    $fn = ['STD' => 'stddev_pop', 'STDDEV' => 'stddev_pop', 'STDDEV_POP' => 'stddev_pop', 'STDDEV_SAMP' => 'stddev_samp',
                        'VARIANCE' => 'var_pop', 'VAR_POP' => 'var_pop', 'VAR_SAMP' => 'var_samp'][$name];
                    return new Typed($fn . '(' . $distinct . $this->num($x) . ')', 'float');
            }
        } finally {
            $this->aggregateDepth--;
        }
    }

    /** DATE_FORMAT with a literal format, written as to_char with the matching pattern. */
    private function dateFormat(Typed $date, Typed $format): Typed
    {
        if ($format->string === null) {
            throw new TranslateError('DATE_FORMAT with a format that is not a literal');
        }
        $map = [
            'Y' => 'YYYY', 'y' => 'YY', 'm' => 'MM', 'c' => 'FMMM', 'd' => 'DD', 'e' => 'FMDD', 'H' => 'HH24',
            'k' => 'FMHH24', 'h' => 'HH12', 'I' => 'HH12', 'l' => 'FMHH12', 'i' => 'MI', 's' => 'SS', 'S' => 'SS',
            'p' => 'AM', 'M' => 'FMMonth', 'b' => 'Mon', 'W' => 'FMDay', 'a' => 'Dy', 'j' => 'DDD',
            'T' => 'HH24:MI:SS', 'r' => 'HH12:MI:SS AM', 'D' => 'FMDDth', 'f' => 'US', 'u' => 'IW', 'v' => 'IW',
            'x' => 'IYYY', 'X' => 'IYYY',
        ];
        $pattern = '';
        $literal = '';
        $f = $format->string;
        $flush = function () use (&$pattern, &$literal): void {
            if ($literal !== '') {
                $pattern .= '"' . str_replace(['\\', '"'], ['\\\\', '\\"'], $literal) . '"';
                $literal = '';
            }
        };
        for ($i = 0, $n = strlen($f); $i < $n; $i++) {
            if ($f[$i] === '%' && $i + 1 < $n) {
                $spec = $f[++$i];
                if (isset($map[$spec])) {
                    $flush();
                    $pattern .= $map[$spec];
                    continue;
                }
                if ($spec === 'w') {
                    throw new TranslateError('DATE_FORMAT with %w');
                }
                $literal .= $spec;
                continue;
            }
            $literal .= $f[$i];
        }
        $flush();
        $d = $this->datetime($date);
        $sql = 'to_char(' . $d . ', ' . Sql::literal($pattern) . ')';
        // The zero date (-infinity here) formats as MySQL formats 0000-00-00 00:00:00.
        $zero = preg_replace_callback('/%(.)/s', static function (array $m): string {
            return ['Y' => '0000', 'y' => '00', 'm' => '00', 'c' => '0', 'd' => '00', 'e' => '0', 'H' => '00', 'k' => '0',
                'i' => '00', 's' => '00', 'S' => '00', 'T' => '00:00:00', 'f' => '000000', '%' => '%'][$m[1]] ?? "\x01";
        }, $f);
        $zeroSql = str_contains((string) $zero, "\x01") ? 'NULL' : Sql::literal((string) $zero);
        return new Typed('CASE WHEN isfinite(' . $d . ') THEN ' . $sql . ' ELSE ' . $zeroSql . ' END', 'text');
    }
}
