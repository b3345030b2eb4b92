<?php

/**
 * Cuts one MySQL statement into tokens.
 *
 * Speed matters (every WordPress query passes here), so the whole statement is cut by one
 * preg_match_all over a single alternation: which group matched says the token's kind, and a
 * last catch-all group turns anything else into a clear error instead of a skipped byte.
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
        . '(\s++|\#[^\n]*+|--(?=\s|\z)[^\n]*+|/\*(?!M?!)[\s\S]*?\*/)'    // 1 space, comment
        . '|(/\*M?!\d*+)'                                                // 2 versioned comment opens
        . '|(\*/)'                                                       // 3 versioned comment closes
        . '|(/\*)'                                                       // 4 unterminated comment
        . '|(`(?:[^`]++|``)*+`)'                                         // 5 quoted identifier
        . '|(\'(?:[^\'\\\\]++|\\\\[\s\S]|\'\')*+\')'                     // 6 'string'
        . '|("(?:[^"\\\\]++|\\\\[\s\S]|"")*+")'                          // 7 "string"
        . '|(0x[0-9a-fA-F]++(?![\w$\x80-\xff])|[xX]\'[0-9a-fA-F]*+\')'   // 8 hex
        . '|((?:\d++(?:\.\d*+)?+|\.\d++)(?:[eE][-+]?+\d++)?+(?![\w$\x80-\xff]))' // 9 number
        . '|([\w$\x80-\xff]++)'                                          // 10 word
        . '|(@@[\w$]++(?:\.[\w$]++)?+)'                                  // 11 @@system.var
        . '|(@[\w$.]++)'                                                 // 12 @user_var
        . '|(<=>|<<|>>|<=|>=|<>|!=|:=|&&|\|\||[-+*/%=<>!\~&|^(),.;])'     // 13 operator
        . '|([\s\S])'                                                    // 14 anything else
        . '~';

    /** @var array<string, string>|null */
    private static ?array $singleEscapes = null;
    /** @var array<string, string>|null */
    private static ?array $doubleEscapes = null;

    /**
     * @return Token[] the tokens, the last one of type END at strlen($sql)
     * @throws ParseError
     */
    public function tokenize(string $sql): array
    {
        if (preg_match_all(self::PATTERN, $sql, $matches, PREG_SET_ORDER) === false) {
            throw new ParseError(0, 'the lexer failed (' . preg_last_error_msg() . ')', $sql);
        }
        $tokens = [];
        $pos = 0;
        $versioned = -1;   // offset of an open /*! comment, -1 when none
        $last = null;      // the previous token, to join adjacent strings
        foreach ($matches as $m) {
            $text = $m[0];
            $len = strlen($text);
            $start = $pos;
            $pos += $len;
            switch (count($m) - 1) {
                case 1:
                    continue 2;
                case 2:
                    if ($versioned >= 0) {
                        throw new ParseError($start, 'a /*! comment inside another one', $sql);
                    }
                    $versioned = $start;
                    continue 2;
                case 3:
                    if ($versioned >= 0) {
                        $versioned = -1;
                        continue 2;
                    }
                    // Outside a versioned comment "*/" is just the two operators.
                    $tokens[] = $last = new Token(Token::OP, '*', '*', $start, $start + 1);
                    $tokens[] = $last = new Token(Token::OP, '/', '/', $start + 1, $pos);
                    continue 2;
                case 4:
                    throw new ParseError($start, 'unterminated /* comment', $sql);
                case 5:
                    $name = str_replace('``', '`', substr($text, 1, -1));
                    $tokens[] = $last = new Token(Token::QUOTED_IDENT, $name, $name, $start, $pos);
                    continue 2;
                case 6:
                    $value = self::decode(substr($text, 1, -1), "'");
                    break;
                case 7:
                    $value = self::decode(substr($text, 1, -1), '"');
                    break;
                case 8:
                    $digits = $text[0] === '0' ? substr($text, 2) : substr($text, 2, -1);
                    $tokens[] = $last = new Token(Token::HEX, $digits, $digits, $start, $pos);
                    continue 2;
                case 9:
                    $tokens[] = $last = new Token(Token::NUMBER, $text, $text, $start, $pos);
                    continue 2;
                case 10:
                    $tokens[] = $last = new Token(Token::WORD, $text, strtoupper($text), $start, $pos);
                    continue 2;
                case 11:
                    $name = substr($text, 2);
                    $tokens[] = $last = new Token(Token::SYSTEM_VAR, $name, strtoupper($name), $start, $pos);
                    continue 2;
                case 12:
                    $name = substr($text, 1);
                    $tokens[] = $last = new Token(Token::USER_VAR, $name, $name, $start, $pos);
                    continue 2;
                case 13:
                    $tokens[] = $last = new Token(Token::OP, $text, $text, $start, $pos);
                    continue 2;
                default:
                    throw new ParseError($start, match ($text) {
                        "'", '"' => 'unterminated string',
                        '`' => 'unterminated quoted identifier',
                        default => sprintf('unexpected character "%s"', addcslashes($text, "\0..\37\177..\377")),
                    }, $sql);
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
