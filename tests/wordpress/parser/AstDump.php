<?php

/**
 * Writes an expression tree as a compact S-expression so tests can assert whole trees in
 * one line: (OR a (AND b c)), (NOT (= a b)), (- 1), 'str', t.col, COUNT(*).
 */

declare(strict_types=1);

namespace Berth\Pg\Tests;

use Berth\Pg\Ast;

final class AstDump
{
    public static function expr(?Ast\Expr $e): string
    {
        if ($e === null) {
            return '-';
        }
        return match (true) {
            $e instanceof Ast\Literal => match ($e->kind) {
                'string' => "'" . addcslashes($e->value, "\0..\37'\\\177..\377") . "'",
                'null' => 'NULL',
                'bool' => $e->value === '1' ? 'TRUE' : 'FALSE',
                'hex' => "X'" . $e->value . "'",
                default => $e->value,
            },
            $e instanceof Ast\ColumnRef => ($e->schema !== null ? $e->schema . '.' : '')
                . ($e->table !== null ? $e->table . '.' : '') . $e->column,
            $e instanceof Ast\Star => '*',
            $e instanceof Ast\DefaultValue => 'DEFAULT',
            $e instanceof Ast\Variable => $e->system
                ? '@@' . ($e->scope !== null ? $e->scope . '.' : '') . $e->name
                : '@' . $e->name,
            $e instanceof Ast\Unary => '(' . $e->op . ' ' . self::expr($e->operand) . ')',
            $e instanceof Ast\Binary => '(' . $e->op . ' ' . self::expr($e->left) . ' ' . self::expr($e->right) . ')',
            $e instanceof Ast\Like => '(' . ($e->not ? 'NOT ' : '') . 'LIKE ' . self::expr($e->left) . ' '
                . self::expr($e->pattern) . ($e->escape !== null ? ' ESCAPE ' . self::expr($e->escape) : '') . ')',
            $e instanceof Ast\Regexp => '(' . ($e->not ? 'NOT ' : '') . 'REGEXP ' . self::expr($e->left) . ' '
                . self::expr($e->pattern) . ')',
            $e instanceof Ast\In => '(' . ($e->not ? 'NOT ' : '') . 'IN ' . self::expr($e->left) . ' '
                . ($e->subquery !== null ? self::select($e->subquery) : '[' . self::list($e->list) . ']') . ')',
            $e instanceof Ast\Between => '(' . ($e->not ? 'NOT ' : '') . 'BETWEEN ' . self::expr($e->expr) . ' '
                . self::expr($e->low) . ' ' . self::expr($e->high) . ')',
            $e instanceof Ast\IsTest => '(IS ' . ($e->not ? 'NOT ' : '') . $e->what . ' ' . self::expr($e->expr) . ')',
            $e instanceof Ast\FunctionCall => $e->name . '(' . ($e->distinct ? 'DISTINCT ' : '') . self::list($e->args)
                . ($e->orderBy !== [] ? ' ORDER BY ' . self::order($e->orderBy) : '')
                . ($e->separator !== null ? ' SEPARATOR ' . self::expr($e->separator) : '') . ')',
            $e instanceof Ast\Cast => '(CAST ' . self::expr($e->expr) . ' ' . $e->type
                . ($e->length !== null ? '(' . $e->length . ($e->scale !== null ? ',' . $e->scale : '') . ')' : '')
                . ($e->charset !== null ? ' CHARSET ' . $e->charset : '') . ')',
            $e instanceof Ast\Interval => '(INTERVAL ' . self::expr($e->value) . ' ' . $e->unit . ')',
            $e instanceof Ast\CaseExpr => '(CASE' . ($e->operand !== null ? ' ' . self::expr($e->operand) : '')
                . implode('', array_map(fn ($w) => ' (WHEN ' . self::expr($w[0]) . ' ' . self::expr($w[1]) . ')', $e->whens))
                . ($e->else !== null ? ' (ELSE ' . self::expr($e->else) . ')' : '') . ')',
            $e instanceof Ast\Exists => '(' . ($e->not ? 'NOT ' : '') . 'EXISTS ' . self::select($e->query) . ')',
            $e instanceof Ast\Subquery => self::select($e->query),
            $e instanceof Ast\Collate => '(COLLATE ' . self::expr($e->expr) . ' ' . $e->collation . ')',
            $e instanceof Ast\Tuple => '(ROW ' . self::list($e->items, ' ') . ')',
            default => throw new \LogicException('no dump for ' . $e::class),
        };
    }

    /** @param Ast\Expr[] $list */
    public static function list(array $list, string $glue = ', '): string
    {
        return implode($glue, array_map([self::class, 'expr'], $list));
    }

    /** @param Ast\OrderItem[] $items */
    public static function order(array $items): string
    {
        return implode(', ', array_map(fn ($o) => self::expr($o->expr) . ($o->desc ? ' DESC' : ''), $items));
    }

    /** A short form of a SELECT: {SELECT items FROM tables WHERE ... } */
    public static function select(Ast\Select $s): string
    {
        $out = '{SELECT ' . implode(', ', array_map(
            fn ($c) => self::expr($c->expr) . ($c->alias !== null ? ' AS ' . $c->alias : ''),
            $s->columns
        ));
        if ($s->from !== []) {
            $out .= ' FROM ' . implode(', ', array_map([self::class, 'table'], $s->from));
        }
        if ($s->where !== null) {
            $out .= ' WHERE ' . self::expr($s->where);
        }
        if ($s->groupBy !== []) {
            $out .= ' GROUP BY ' . self::list($s->groupBy);
        }
        if ($s->having !== null) {
            $out .= ' HAVING ' . self::expr($s->having);
        }
        foreach ($s->unions as [$all, $part]) {
            $out .= ' UNION ' . ($all ? 'ALL ' : '') . self::select($part);
        }
        if ($s->orderBy !== []) {
            $out .= ' ORDER BY ' . self::order($s->orderBy);
        }
        if ($s->limit !== null) {
            $out .= ' LIMIT ' . self::expr($s->limit) . ($s->offset !== null ? ' OFFSET ' . self::expr($s->offset) : '');
        }
        return $out . '}';
    }

    public static function table(Ast\TableRef $t): string
    {
        return match (true) {
            $t instanceof Ast\TableName => ($t->schema !== null ? $t->schema . '.' : '') . $t->name
                . ($t->alias !== null ? ' ' . $t->alias : '')
                . implode('', array_map(
                    fn ($h) => ' ' . $h->kind . ' INDEX' . ($h->for !== '' ? ' FOR ' . $h->for : '') . ' (' . implode(',', $h->indexes) . ')',
                    $t->indexHints
                )),
            $t instanceof Ast\DerivedTable => self::select($t->query) . ' ' . $t->alias,
            $t instanceof Ast\Join => '(' . $t->type . ' ' . self::table($t->left) . ' ' . self::table($t->right)
                . ($t->on !== null ? ' ON ' . self::expr($t->on) : '')
                . ($t->using !== null ? ' USING ' . implode(',', $t->using) : '') . ')',
            default => throw new \LogicException('no dump for ' . $t::class),
        };
    }
}
