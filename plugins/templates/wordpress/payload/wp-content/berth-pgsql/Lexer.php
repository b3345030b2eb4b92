<?php

/**
 * Cuts one MySQL statement into tokens.
 *
 * Speed matters (every WordPress query passes here), so the whole statement is cut by one
 * preg_match_all: each match is the space and comments before a token (skipped) and the token
 * (group 1), whose branch of one alternation names its kind by its (*MARK); a catch-all branch
 * turns anything else into a clear error instead of a skipped byte.
 * MySQL's rules kept: backtick identifiers with `` doubled; 'single' and "double" quoted
 * strings with backslash escapes (\0 \' \" \b \n \r \t \Z \\; \% and \_ keep their backslash,
 * any other \x is x) and doubled quotes; adjacent strings joined; numbers (1, 1.5, .5, 1e3),
 * hex (0xAB, X'AB'); @var and @@scope.var; # and "-- " comments, / * * / comments, and
 * / *! ... * / versioned comments whose content is read as SQL.
 */

declare(strict_types=1);

namespace Berth\Pg;

final class Lexer
{
    private const PATTERN = '~'
        . '(?:\s++|\#[^\n]*+|--(?=\s|\z)[^\n]*+|/\*(?!M?!)[\s\S]*?\*/)*+'           // space, comments: skipped
        . '(/\*M?!\d*+(*MARK:a)'                                                    // a: /*! opens
        . '|\*/(*MARK:b)'                                                           // b: /*! closes
        . '|/\*(*MARK:c)'                                                           // c: unterminated /*
        . '|`(?:[^`]++|``)*+`(*MARK:d)'                                             // d: `identifier`
        . '|\'(?:[^\'\\\\]++|\\\\[\s\S]|\'\')*+\'(*MARK:e)'                         // e: 'string'
        . '|"(?:[^"\\\\]++|\\\\[\s\S]|"")*+"(*MARK:f)'                              // f: "string"
        . '|(?:0x[0-9a-fA-F]++(?![\w$\x80-\xff])|[xX]\'[0-9a-fA-F]*+\')(*MARK:g)'   // g: hex
        . '|(?:\d++(?:\.\d*+)?+|\.\d++)(?:[eE][-+]?+\d++)?+(?![\w$\x80-\xff])(*MARK:h)' // h: number
        . '|[\w$\x80-\xff]++(*MARK:i)'                                              // i: word
        . '|@@[\w$]++(?:\.[\w$]++)?+(*MARK:j)'                                      // j: @@system.var
        . '|@[\w$.]++(*MARK:k)'                                                     // k: @user_var
        . '|(?:<=>|<<|>>|<=|>=|<>|!=|:=|&&|\|\||[-+*/%=<>!\~&|^(),.;])(*MARK:l)'    // l: operator
        . '|[\s\S](*MARK:m)'                                                        // m: anything else
        . '|\z(*MARK:z))'                                                           // z: the end
        . '~';

    private const COMMON = [
        '\\0' => "\0", "\\'" => "'", '\\"' => '"', '\\b' => "\x08", '\\n' => "\n", '\\r' => "\r",
        '\\t' => "\t", '\\Z' => "\x1a", '\\\\' => '\\', '\\%' => '\\%', '\\_' => '\\_',
    ];
    private const COMMON_SINGLE = self::COMMON + ["''" => "'"];
    private const COMMON_DOUBLE = self::COMMON + ['""' => '"'];

    /** @var array<string, string>|null every \x escape (for strings with rare ones) */
    private static ?array $singleEscapes = null;
    /** @var array<string, string>|null */
    private static ?array $doubleEscapes = null;

    /**
     * @return Token[] the tokens, the last one of type END at strlen($sql)
     * @throws ParseError
     */
    public function tokenize(string $sql): array
    {
        // Pattern order (three flat lists) is cheaper than an array per match.
        $count = preg_match_all(self::PATTERN, $sql, $matches);
        if ($count === false) {
            throw new ParseError(0, 'the lexer failed (' . preg_last_error_msg() . ')', $sql);
        }
        $tokens = [];
        $pos = 0;         // where the next match starts
        $versioned = -1;   // offset of an open /*! comment, -1 when none
        $last = null;      // the previous token, to join adjacent strings
        [$whole, $texts] = $matches;
        $kinds = $matches['MARK'];
        for ($k = 0; $k < $count; $k++) {
            $text = $texts[$k];
            $pos += strlen($whole[$k]);
            $start = $pos - strlen($text);   // after the skipped space and comments
            switch ($kinds[$k]) {
                case 'a':
                    if ($versioned >= 0) {
                        throw new ParseError($start, 'a /*! comment inside another one', $sql);
                    }
                    $versioned = $start;
                    continue 2;
                case 'b':
                    if ($versioned >= 0) {
                        $versioned = -1;
                        continue 2;
                    }
                    // Outside a versioned comment "*/" is just the two operators.
                    $tokens[] = $last = new Token(Token::OP, '*', '*', $start, $start + 1);
                    $tokens[] = $last = new Token(Token::OP, '/', '/', $start + 1, $pos);
                    continue 2;
                case 'c':
                    throw new ParseError($start, 'unterminated /* comment', $sql);
                case 'd':
                    $name = str_replace('``', '`', substr($text, 1, -1));
                    $tokens[] = $last = new Token(Token::QUOTED_IDENT, $name, $name, $start, $pos);
                    continue 2;
                case 'e':
                    $value = self::decode(substr($text, 1, -1), "'");
                    break;
                case 'f':
                    $value = self::decode(substr($text, 1, -1), '"');
                    break;
                case 'g':
                    $digits = $text[0] === '0' ? substr($text, 2) : substr($text, 2, -1);
                    $tokens[] = $last = new Token(Token::HEX, $digits, $digits, $start, $pos);
                    continue 2;
                case 'h':
                    $tokens[] = $last = new Token(Token::NUMBER, $text, $text, $start, $pos);
                    continue 2;
                case 'i':
                    $tokens[] = $last = new Token(Token::WORD, $text, strtoupper($text), $start, $pos);
                    continue 2;
                case 'j':
                    $name = substr($text, 2);
                    $tokens[] = $last = new Token(Token::SYSTEM_VAR, $name, strtoupper($name), $start, $pos);
                    continue 2;
                case 'k':
                    $name = substr($text, 1);
                    $tokens[] = $last = new Token(Token::USER_VAR, $name, $name, $start, $pos);
                    continue 2;
                case 'l':
                    $tokens[] = $last = new Token(Token::OP, $text, $text, $start, $pos);
                    continue 2;
                case 'm':
                    throw new ParseError($start, match ($text) {
                        "'", '"' => 'unterminated string',
                        '`' => 'unterminated quoted identifier',
                        default => sprintf('unexpected character "%s"', addcslashes($text, "\0..\37\177..\377")),
                    }, $sql);
                default:
                    break 2;   // the end
            }
            // A string: MySQL joins adjacent string literals into one.
            if ($last !== null && $last->type === Token::STRING) {
                $last->value .= $value;
                $last->upper = $last->value;
                $last->end = $pos;
                continue;
            }
            $tokens[] = $last = new Token(Token::STRING, $value, $value, $start, $pos);
        }
        if ($versioned >= 0) {
            throw new ParseError($versioned, 'unterminated /*! comment', $sql);
        }
        $tokens[] = new Token(Token::END, '', '', $pos, $pos);
        return $tokens;
    }

    /** The raw bytes of a quoted string's inside, MySQL escapes applied. */
    private static function decode(string $inner, string $quote): string
    {
        if (strpbrk($inner, '\\' . $quote) === false) {
            return $inner;
        }
        // The common escapes only (what esc_sql() writes): a short table is much cheaper.
        if (!preg_match('/\\\\[^0\'"bnrtZ\\\\%_]/', $inner)) {
            return strtr($inner, $quote === "'" ? self::COMMON_SINGLE : self::COMMON_DOUBLE);
        }
        if (self::$singleEscapes === null) {
            $table = [];
            for ($b = 0; $b < 256; $b++) {
                $table['\\' . chr($b)] = chr($b);   // an unknown escape \x is x
            }
            $table['\\0'] = "\0";
            $table['\\b'] = "\x08";
            $table['\\n'] = "\n";
            $table['\\r'] = "\r";
            $table['\\t'] = "\t";
            $table['\\Z'] = "\x1a";
            $table['\\%'] = '\\%';   // kept for LIKE, as MySQL does
            $table['\\_'] = '\\_';
            self::$singleEscapes = $table + ["''" => "'"];
            self::$doubleEscapes = $table + ['""' => '"'];
        }
        return strtr($inner, $quote === "'" ? self::$singleEscapes : self::$doubleEscapes);
    }
}
