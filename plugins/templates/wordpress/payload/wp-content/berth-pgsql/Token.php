<?php

/**
 * One token of a MySQL statement, as the Lexer cuts it.
 */

declare(strict_types=1);

namespace Berth\Pg;

final class Token
{
    /** A bare word: keyword or identifier (`upper` holds it upper-cased). */
    public const WORD = 1;
    /** A `backtick` identifier: never a keyword; value has the quotes removed. */
    public const QUOTED_IDENT = 2;
    /** A 'string' or "string" (adjacent ones already joined); value decoded to raw bytes. */
    public const STRING = 3;
    /** A number as written (123, 1.5, .5, 1e3). */
    public const NUMBER = 4;
    /** 0xABC or X'ABC'; value holds the hex digits only. */
    public const HEX = 5;
    /** @name; value is the name. */
    public const USER_VAR = 6;
    /** @@name or @@scope.name; value is the text after @@. */
    public const SYSTEM_VAR = 7;
    /** Punctuation or operator; value and upper are the operator text. */
    public const OP = 8;
    /** The end of the statement. */
    public const END = 9;

    /** @var int one of the constants above */
    public $type;
    /** @var string */
    public $value;
    /** @var string */
    public $upper;
    /** @var int byte offset of the token's first byte */
    public $pos;
    /** @var int byte offset just after the token */
    public $end;

    // The properties are untyped on purpose: a token is made for every word of every query,
    // and typed-property checks make that measurably slower (the constructor's types stand).
    public function __construct(int $type, string $value, string $upper, int $pos, int $end)
    {
        $this->type = $type;
        $this->value = $value;
        $this->upper = $upper;
        $this->pos = $pos;
        $this->end = $end;
    }

    public static function typeName(int $type): string
    {
        return match ($type) {
            self::WORD => 'word',
            self::QUOTED_IDENT => 'quoted identifier',
            self::STRING => 'string',
            self::NUMBER => 'number',
            self::HEX => 'hex literal',
            self::USER_VAR => 'user variable',
            self::SYSTEM_VAR => 'system variable',
            self::OP => 'operator',
            default => 'end of statement',
        };
    }
}
