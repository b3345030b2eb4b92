<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * The tables a query block can see (its FROM list) and the block around it, for resolving
 * column references the MySQL way: case-insensitively, qualified or not, outwards for
 * correlated subqueries.
 */
final class Scope
{
    /**
     * @var array<int, array{name: string, columns: array<int, array{name: string, type: string, nullable: bool}>, table: ?array, pk: string[]}>
     */
    public array $sources = [];

    /** @var array<string, Typed> select-list aliases (lower-case) => the item, for ORDER BY and HAVING */
    public array $aliases = [];

    /** @var array<string, string> lower-case alias => the alias as written */
    public array $aliasNames = [];

    /** Grouping: null when the block does not aggregate, else the grouped "source.column" keys. */
    public ?array $grouped = null;

    /** Sources whose primary key is grouped (their columns are functionally dependent). */
    public array $determined = [];

    public function __construct(public ?Scope $outer = null)
    {
    }

    public function add(string $name, array $columns, ?array $table = null, array $pk = [], bool $nullable = false): void
    {
        if ($nullable) {
            foreach ($columns as &$column) {
                $column['nullable'] = true;
            }
            unset($column);
        }
        $this->sources[] = ['name' => $name, 'columns' => $columns, 'table' => $table, 'pk' => $pk];
    }

    public function source(string $name): ?array
    {
        foreach ($this->sources as $source) {
            if ($source['name'] === $name) {
                return $source;
            }
        }
        foreach ($this->sources as $source) {
            if (strcasecmp($source['name'], $name) === 0) {
                return $source;
            }
        }
        return null;
    }

    /** @return array{name: string, type: string, nullable: bool}|null */
    public static function columnOf(array $source, string $column): ?array
    {
        foreach ($source['columns'] as $c) {
            if (strcasecmp($c['name'], $column) === 0) {
                return $c;
            }
        }
        return null;
    }
}
