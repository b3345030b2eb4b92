<?php

declare(strict_types=1);

namespace Berth\Pg;

/**
 * A MySQL construct the translator does not support. It is never passed through: the query
 * fails, and the wpdb layer logs this message with the MySQL text.
 */
final class TranslateError extends \RuntimeException
{
    public function __construct(string $what, ?\Throwable $previous = null, bool $asIs = false)
    {
        parent::__construct($asIs ? $what : 'cannot translate MySQL: ' . $what, 0, $previous);
    }

    /** The parser's own message ("cannot parse MySQL at offset N (near ...): why"). */
    public static function fromParse(ParseError $error): self
    {
        return new self($error->getMessage(), $error, true);
    }
}
