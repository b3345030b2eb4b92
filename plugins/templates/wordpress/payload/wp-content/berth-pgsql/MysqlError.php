<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * What MySQL would have answered: its error number and message, e.g.
 * 1146 "Table 'wp.wp_options' doesn't exist". WordPress reads these texts (the installer
 * probes for missing tables), so the messages are MySQL's exactly.
 */
final class MysqlError extends \RuntimeException
{
    public function __construct(int $code, string $message)
    {
        parent::__construct($message, $code);
    }

    public static function noSuchTable(string $database, string $table): self
    {
        return new self(1146, "Table '$database.$table' doesn't exist");
    }

    public static function unknownColumn(string $column, string $clause): self
    {
        return new self(1054, "Unknown column '$column' in '$clause'");
    }

    public static function ambiguousColumn(string $column, string $clause): self
    {
        return new self(1052, "Column '$column' in $clause is ambiguous");
    }

    public static function tableExists(string $table): self
    {
        return new self(1050, "Table '$table' already exists");
    }

    public static function unknownTable(string $database, string $table): self
    {
        return new self(1051, "Unknown table '$database.$table'");
    }
}
