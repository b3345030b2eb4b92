<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * NUL bytes and PostgreSQL text.
 *
 * WordPress stores serialized PHP objects whose private and protected property names carry
 * NUL bytes; PostgreSQL text cannot hold U+0000. The translator writes every NUL of a string
 * literal as STANDIN, U+10FFFF (the last code point: a Unicode noncharacter that WordPress
 * data never contains, and that PostgreSQL's UTF-8 text accepts), and the wpdb layer turns
 * STANDIN back into "\0" in every string it returns.
 */
final class Nul
{
    public const STANDIN = "\u{10FFFF}";

    /** The value as stored in PostgreSQL: each NUL byte becomes STANDIN. */
    public static function encode(string $value): string
    {
        return str_contains($value, "\0") ? str_replace("\0", self::STANDIN, $value) : $value;
    }

    /** The value as MySQL would have returned it: each STANDIN becomes a NUL byte. */
    public static function decode(string $value): string
    {
        return str_contains($value, self::STANDIN) ? str_replace(self::STANDIN, "\0", $value) : $value;
    }
}
