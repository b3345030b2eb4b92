<?php

/**
 * The translator's speed for the benchmark: parses and translates every statement of the
 * corpus (no database; DDL updates the in-memory catalogue as it goes, so later statements
 * see the tables) several times and prints the mean time per statement in microseconds.
 *   php tests/wordpress/translator/translate_corpus.php [corpus.jsonl] [rounds]
 */

declare(strict_types=1);

require_once __DIR__ . '/../../../plugins/templates/wordpress/payload/wp-content/berth-pgsql/autoload.php';

use Berth\Pg\Catalog;
use Berth\Pg\MysqlError;
use Berth\Pg\TranslateError;
use Berth\Pg\Translator;

$file = $argv[1] ?? (is_file('/work/shared/data/wordpress-6.1.9-queries.jsonl')
    ? '/work/shared/data/wordpress-6.1.9-queries.jsonl' : __DIR__ . '/../data/wordpress-6.1.9-queries.jsonl');
$rounds = (int) ($argv[2] ?? 5);
$statements = [];
foreach (file($file, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) as $line) {
    $statements[] = json_decode($line, true, 512, JSON_THROW_ON_ERROR)['sql'];
}
$best = INF;
$total = 0.0;
$refused = 0;
for ($round = 0; $round < $rounds; $round++) {
    $translator = new Translator(new Catalog(), 'wp');
    $refused = 0;
    $start = hrtime(true);
    foreach ($statements as $sql) {
        try {
            $translator->translate($sql);
        } catch (MysqlError) {
            $refused++; // the installer's probes of tables that do not exist yet
        } catch (TranslateError $e) {
            fwrite(STDERR, $e->getMessage() . "\n");
            exit(1);
        }
    }
    $perStatement = (hrtime(true) - $start) / 1000 / count($statements);
    $best = min($best, $perStatement);
    $total += $perStatement;
}
printf("%d statements (%d answered with MySQL's error), %d rounds: mean %.1f us, best round %.1f us per statement (parse + translate)\n",
    count($statements), $refused, $rounds, $total / $rounds, $best);
