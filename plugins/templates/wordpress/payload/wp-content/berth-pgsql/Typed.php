<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * A PostgreSQL expression with the MySQL type class it carries: 'int', 'num', 'float',
 * 'text', 'datetime', 'date', 'time', 'bool', 'null'. String literals keep their raw value
 * so that they can be converted the MySQL way where the other side is not text. $binary: a
 * BINARY / _bin string, compared byte for byte (LIKE and REGEXP turn case-sensitive).
 * $column: a column itself, whose collation PostgreSQL applies to a comparison.
 */
final class Typed
{
    public function __construct(
        public string $sql,
        public string $type,
        public ?string $string = null,
        public bool $number = false,
        public bool $nullable = true,
        public bool $binary = false,
        public bool $column = false
    ) {
    }

    public function isNumeric(): bool
    {
        return $this->type === 'int' || $this->type === 'num' || $this->type === 'float' || $this->type === 'bool';
    }

    public function isTemporal(): bool
    {
        return $this->type === 'datetime' || $this->type === 'date' || $this->type === 'time';
    }
}
