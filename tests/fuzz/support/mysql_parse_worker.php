<?php

/**
 * The PHP half of the mysql_parse fuzz target (tests/fuzz/mysql_parse_fuzz.cpp): one long-lived
 * process that reads request frames (4-byte big-endian length, then the MySQL statement) on
 * stdin and answers one frame each on stdout (tests/fuzz/support/reference_process.hpp).
 *
 * Each statement is parsed (Berth\Pg\Parser) and, when it parses, translated by a Translator
 * over a fixed in-memory catalogue: WordPress's tables, made by translating the CREATE TABLE
 * statements of the captured corpus once at start (no database is needed; translate() updates
 * the in-memory Catalog). Each statement gets a fresh Translator over a copy of it, so one
 * input's DDL or SET never changes the next one's answer.
 *
 * Answer frames, first byte:
 *   P <message>   ParseError (the parser's documented refusal)
 *   T <message>   TranslateError (the translator's documented refusal)
 *   M <message>   MysqlError (MySQL's own answer, e.g. a table that does not exist)
 *   K <kind>\n then, per PostgreSQL statement, 4-byte length + text
 *   F <class>: <message> at <file>:<line>   anything else: a PHP error, warning or notice, an
 *                 exception of another class, or a TranslateError wrapping a PHP \Error (the
 *                 translator's "internal error", a crash it catches so pages survive)
 */

declare(strict_types=1);

require __DIR__ . '/../../../plugins/templates/wordpress/payload/wp-content/berth-pgsql/autoload.php';

use Berth\Pg\Catalog;
use Berth\Pg\MysqlError;
use Berth\Pg\ParseError;
use Berth\Pg\Parser;
use Berth\Pg\TranslateError;
use Berth\Pg\Translator;

error_reporting(E_ALL);
// Every warning, notice and deprecation becomes an exception, reported as a finding.
set_error_handler(static function (int $level, string $message, string $file, int $line): bool {
    throw new \ErrorException($message, 0, $level, $file, $line);
});

function wordpressCatalog(): Catalog
{
    $translator = new Translator(new Catalog(), 'wp');
    $corpus = __DIR__ . '/../../wordpress/data/wordpress-6.1.9-queries.jsonl';
    foreach (file($corpus, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) as $line) {
        $sql = json_decode($line, true, 512, JSON_THROW_ON_ERROR)['sql'];
        if (preg_match('/^\s*CREATE\s+TABLE/i', $sql)) {
            $translator->translate($sql);
        }
    }
    return $translator->catalog();
}

function readExactly($in, int $size): ?string
{
    $data = '';
    while (strlen($data) < $size) {
        $chunk = fread($in, $size - strlen($data));
        if ($chunk === false || $chunk === '') {
            return null;
        }
        $data .= $chunk;
    }
    return $data;
}

function finding(\Throwable $e): string
{
    return 'F' . get_class($e) . ': ' . $e->getMessage() . ' at ' . basename($e->getFile()) . ':' . $e->getLine();
}

function answer(string $mysql, Catalog $catalog): string
{
    try {
        (new Parser())->parse($mysql);
    } catch (ParseError $e) {
        return 'P' . $e->getMessage();
    }
    try {
        $translation = (new Translator(clone $catalog, 'wp'))->translate($mysql);
    } catch (TranslateError $e) {
        if ($e->getPrevious() instanceof \Error || $e->getPrevious() instanceof \ErrorException) {
            return finding($e->getPrevious());
        }
        return 'T' . $e->getMessage();
    } catch (MysqlError $e) {
        return 'M' . $e->getMessage();
    }
    $out = 'K' . $translation->kind . "\n";
    foreach ($translation->sql as $sql) {
        $out .= pack('N', strlen($sql)) . $sql;
    }
    return $out;
}

$catalog = wordpressCatalog();
$in = fopen('php://stdin', 'rb');
$out = fopen('php://stdout', 'wb');
while (($header = readExactly($in, 4)) !== null) {
    $size = unpack('N', $header)[1];
    $mysql = $size > 0 ? readExactly($in, $size) : '';
    if ($mysql === null) {
        break;
    }
    try {
        $reply = answer($mysql, $catalog);
    } catch (\Throwable $e) {
        $reply = finding($e);
    }
    fwrite($out, pack('N', strlen($reply)) . $reply);
    fflush($out);
}
