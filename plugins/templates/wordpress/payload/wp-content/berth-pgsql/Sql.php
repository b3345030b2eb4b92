<?php

declare(strict_types=1);

namespace Berth\Pg;

/** PostgreSQL literals and identifiers, written safely (standard_conforming_strings on). */
final class Sql
{
    /** 'text' with quotes doubled; NUL bytes become Nul::STANDIN; invalid UTF-8 is refused. */
    public static function literal(string $value): string
    {
        if (!mb_check_encoding($value, 'UTF-8')) {
            throw new TranslateError('a string value is not valid UTF-8 (PostgreSQL text holds UTF-8 only)');
        }
        return "'" . str_replace("'", "''", Nul::encode($value)) . "'";
    }

    /**
     * "name" with quotes doubled: MySQL's name, case kept; invalid UTF-8 is refused. A NUL byte
     * (a raw one in the text MySQL names an unaliased select item after) becomes Nul::STANDIN:
     * PostgreSQL's statement text ends at a NUL.
     */
    public static function ident(string $name): string
    {
        if (!mb_check_encoding($name, 'UTF-8')) {
            throw new TranslateError('a name is not valid UTF-8 (PostgreSQL names hold UTF-8 only)');
        }
        return '"' . str_replace('"', '""', Nul::encode($name)) . '"';
    }

    /** A PostgreSQL object name of at most 63 bytes, unique for a longer $name. */
    public static function shortName(string $name): string
    {
        if (strlen($name) <= 63) {
            return $name;
        }
        return substr($name, 0, 50) . '_' . substr(md5($name), 0, 12);
    }
}
