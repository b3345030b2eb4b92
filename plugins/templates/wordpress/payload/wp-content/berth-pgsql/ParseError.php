<?php

/**
 * A MySQL statement the lexer or parser does not accept (bad syntax or a construct it does
 * not know). It names the byte offset, the text there and the reason; the caller appends
 * the statement itself when it logs it.
 */

declare(strict_types=1);

namespace Berth\Pg;

final class ParseError extends \RuntimeException
{
    public function __construct(public readonly int $offset, public readonly string $reason, string $sql)
    {
        $near = substr($sql, $offset, 40);
        if (preg_match('//u', $near) !== 1) {
            // Cut inside a multi-byte character: drop the partial bytes at the end.
            $near = (string) preg_replace('/[\xC0-\xFF][\x80-\xBF]*$/', '', $near);
        }
        // Keep the message one readable line: control bytes (NUL, newlines) shown escaped.
        $near = addcslashes($near, "\0..\37\"\\");
        parent::__construct(sprintf('cannot parse MySQL at offset %d (near "%s"): %s', $offset, $near, $reason));
    }
}
